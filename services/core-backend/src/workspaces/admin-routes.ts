/**
 * /api/admin: platform-wide workspace administration, granted by OPA only (the user service's
 * `workspace-admin` feature; `admin` holds it). An administrator is not a member of every
 * workspace: to act inside one they make themselves its owner, which the member list shows.
 */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from './caller';
import { Paging, WorkspaceParams } from '../http-schemas';
import { toWorkspaceResponse, WorkspaceList, WorkspaceResponse } from './schemas';
import type { Workspaces } from './workspaces';

export function adminRoutes(workspaces: Workspaces, callerOf: CallerOf): RouteDefinition[] {
  const tags = ['administration'];
  const path = '/api/admin/workspaces';
  return [
    ...resourceRoutes(
      {
        tags,
        path,
        item: '/:workspaceId',
        params: { item: WorkspaceParams },
        // OPA decided: the listing is the same for every administrator.
        caller: () => Promise.resolve(undefined),
        one: { description: 'The workspace', schema: WorkspaceResponse, from: toWorkspaceResponse },
        missing: 'No such workspace',
      },
      {
        list: {
          summary: 'Every workspace of the platform',
          page: { description: 'A page of workspaces', schema: WorkspaceList },
          query: Paging,
          run: (_caller, query) => workspaces.listAll(query),
        },
      },
    ),
    defineRoute({
      method: 'put',
      path: `${path}/:workspaceId/owner`,
      summary:
        'Make the caller an owner of the workspace (repair: e.g. its owners left the company)',
      tags,
      request: { params: WorkspaceParams },
      responses: {
        200: { description: 'The workspace', schema: WorkspaceResponse },
        404: { description: 'No such workspace' },
      },
      handler: async ({ params }, req) =>
        toWorkspaceResponse(
          await workspaces.takeOwnership((await callerOf(req)).id, params.workspaceId),
        ),
    }),
  ];
}
