/**
 * The workspaces area: workspaces, their members and settings, the workspace roles and the
 * administrators' routes. Every other area decides access through the `workspaces` it hands out
 * (`memberOf`) and learns who asks through its `callerOf`.
 */
import type pg from 'pg';
import type { Area } from '../area';
import type { UserDirectory } from '../users/user-directory';
import { adminRoutes } from './admin-routes';
import { callerOf } from './caller';
import { createRoleRepository } from './role-repository';
import { workspaceRoleRoutes } from './role-routes';
import { workspaceRoutes } from './routes';
import { createWorkspaceRepository } from './workspace-repository';
import { createWorkspaceRoles } from './workspace-roles';
import { createWorkspaces, type WorkspacesDeps } from './workspaces';

export function workspacesArea(deps: {
  pool: pg.Pool;
  users: UserDirectory;
  deletions: WorkspacesDeps['deletions'];
}) {
  const workspaces = createWorkspaces({
    repository: createWorkspaceRepository(deps.pool),
    users: deps.users,
    deletions: deps.deletions,
  });
  const caller = callerOf(deps.users);
  const roles = createWorkspaceRoles(createRoleRepository(deps.pool));
  const area: Area = {
    routes: [
      ...workspaceRoutes(workspaces, caller),
      ...workspaceRoleRoutes(roles),
      ...adminRoutes(workspaces, caller),
    ],
  };
  return { area, workspaces, callerOf: caller };
}
