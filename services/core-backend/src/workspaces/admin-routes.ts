/**
 * /api/admin: platform-wide workspace administration, granted by OPA only (the user service's
 * `workspace-admin` feature; `admin` holds it). An administrator is not a member of every
 * workspace: to act inside one they make themselves its owner, which the member list shows.
 */
import { itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from './caller';
import { opaDecided, workspaceItem } from './collection-routes';
import { Paging } from '../http-schemas';
import { toWorkspaceResponse, WorkspaceList } from './schemas';
import type { Workspaces } from './workspaces';

export function adminRoutes(workspaces: Workspaces, callerOf: CallerOf): RouteDefinition[] {
  const workspace = {
    ...workspaceItem,
    tags: ['administration'],
    path: '/api/admin/workspaces',
    caller: opaDecided,
    missing: 'No such workspace',
  };
  return [
    ...resourceRoutes(workspace, {
      list: {
        summary: 'Every workspace of the platform',
        page: { description: 'A page of workspaces', schema: WorkspaceList },
        query: Paging,
        run: (_caller, query) => workspaces.listAll(query),
      },
    }),
    // The one who becomes the owner is the caller.
    itemRoute(
      { ...workspace, caller: async (req) => (await callerOf(req)).id },
      {
        method: 'put',
        path: '/owner',
        summary:
          'Make the caller an owner of the workspace (repair: e.g. its owners left the company)',
        answer: workspaceItem.one,
        run: async (userId, { workspaceId }) =>
          toWorkspaceResponse(await workspaces.takeOwnership(userId, workspaceId)),
      },
    ),
  ];
}
