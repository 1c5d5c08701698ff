/**
 * GET and PUT `/api/workspaces/:workspaceId/<segment>/:id/access`: who may use one knowledge
 * resource. The same two routes for every resource type.
 */
import { defineRoute, storedText, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import type { ResourceType } from './access-lists';
import type { ResourceAccess } from './resource-access';
import { actorOf, type CallerOf } from '../workspaces/caller';

const Params = z.object({ workspaceId: z.uuid(), id: z.uuid() });
const AccessList = z.object({ user_ids: z.array(storedText().min(1).max(128)).max(10_000) });

export function accessRoutes(
  type: ResourceType,
  segment: string,
  deps: { resourceAccess: ResourceAccess; callerOf: CallerOf },
): RouteDefinition[] {
  const path = `/api/workspaces/:workspaceId/${segment}/:id/access`;
  const tags = ['access lists'];
  const missing = { description: `No such ${type}, or the caller may not use it` };
  return [
    defineRoute({
      method: 'get',
      path,
      summary: `Who may use the ${type}`,
      tags,
      request: { params: Params },
      responses: { 200: { description: 'The access list', schema: AccessList }, 404: missing },
      handler: async ({ params }, req) => ({
        user_ids: await deps.resourceAccess.users(
          await actorOf(deps.callerOf, req, params.workspaceId),
          type,
          params.id,
        ),
      }),
    }),
    defineRoute({
      method: 'put',
      path,
      summary: `Replace who may use the ${type} (members only)`,
      tags,
      request: { params: Params, body: AccessList },
      responses: {
        200: { description: 'The access list', schema: AccessList },
        400: { description: 'A user is not a member of the workspace' },
        403: { description: 'Needs knowledge.write' },
        404: missing,
      },
      handler: async ({ params, body }, req) => ({
        user_ids: await deps.resourceAccess.replace(
          await actorOf(deps.callerOf, req, params.workspaceId),
          type,
          params.id,
          body.user_ids,
        ),
      }),
    }),
  ];
}
