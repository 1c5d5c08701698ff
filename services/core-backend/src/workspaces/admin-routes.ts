/**
 * /api/admin: platform-wide workspace administration, granted by OPA only (the user service's
 * `workspace-admin` feature; `admin` holds it). An administrator is not a member of every
 * workspace: to act inside one they make themselves its owner, which the member list shows.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from './caller';
import { Paging, WorkspaceParams } from '../http-schemas';
import { toWorkspaceResponse, WorkspaceList, WorkspaceResponse } from './schemas';
import type { Workspaces } from './workspaces';

export function adminRoutes(workspaces: Workspaces, callerOf: CallerOf): RouteDefinition[] {
  const tags = ['administration'];
  return [
    defineRoute({
      method: 'get',
      path: '/api/admin/workspaces',
      summary: 'Every workspace of the platform',
      tags,
      request: { query: Paging },
      responses: { 200: { description: 'A page of workspaces', schema: WorkspaceList } },
      handler: async ({ query }) => {
        const { rows, total } = await workspaces.listAll(query);
        return { data: rows.map(toWorkspaceResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/admin/workspaces/:workspaceId/owner',
      summary:
        'Make the caller an owner of the workspace (repair: e.g. its owners left the company)',
      tags,
      request: { params: WorkspaceParams },
      responses: {
        200: { description: 'The workspace', schema: WorkspaceResponse },
        404: { description: 'No such workspace' },
      },
      handler: async ({ params }, req) => {
        const caller = await callerOf(req);
        await workspaces.get(params.workspaceId);
        await workspaces.setMember(params.workspaceId, caller.id, 'owner');
        return toWorkspaceResponse(await workspaces.get(params.workspaceId, 'owner'));
      },
    }),
  ];
}
