/** /api/workspace-roles: the roles a member can hold (changes are OPA-guarded to administrators). */
import { resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { opaDecided } from './collection-routes';
import { RoleBody, RoleParams, RoleResponse, toRoleResponse } from './schemas';
import type { WorkspaceRoles } from './workspace-roles';

export function workspaceRoleRoutes(roles: WorkspaceRoles): RouteDefinition[] {
  const builtin = 'A built-in role cannot be changed';
  return resourceRoutes(
    {
      tags: ['workspace roles'],
      path: '/api/workspace-roles',
      params: { item: RoleParams },
      caller: opaDecided,
      one: { description: 'The role', schema: RoleResponse, from: toRoleResponse },
      missing: 'No such role',
    },
    {
      list: {
        summary: 'Every workspace role, built-in first',
        page: { description: 'Roles', schema: z.object({ data: z.array(RoleResponse) }) },
        run: () => roles.list(),
      },
      create: {
        summary: 'Add a workspace role',
        body: RoleBody,
        run: (_caller, body) => roles.create(body),
        answers: { 409: 'Name taken' },
      },
      change: {
        summary: 'Change the permissions of a workspace role',
        method: 'put',
        body: RoleBody.omit({ name: true }),
        run: (_caller, { name }, body) => roles.update(name, body),
        answers: { 403: builtin },
      },
      remove: {
        summary: 'Delete a workspace role no member holds',
        run: (_caller, { name }) => roles.remove(name),
        answers: { 403: builtin, 409: 'Still held by members' },
      },
    },
  );
}
