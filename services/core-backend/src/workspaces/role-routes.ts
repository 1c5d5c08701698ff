/** /api/workspace-roles: the roles a member can hold (changes are OPA-guarded to administrators). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { Deleted } from '../http-schemas';
import { RoleBody, RoleParams, RoleResponse, toRoleResponse } from './schemas';
import type { WorkspaceRoles } from './workspace-roles';

export function workspaceRoleRoutes(roles: WorkspaceRoles): RouteDefinition[] {
  const tags = ['workspace roles'];
  const one = { description: 'The role', schema: RoleResponse };
  const builtin = { description: 'A built-in role cannot be changed' };
  return [
    defineRoute({
      method: 'get',
      path: '/api/workspace-roles',
      summary: 'Every workspace role, built-in first',
      tags,
      responses: {
        200: { description: 'Roles', schema: z.object({ data: z.array(RoleResponse) }) },
      },
      handler: async () => ({ data: (await roles.list()).map(toRoleResponse) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/workspace-roles',
      summary: 'Add a workspace role',
      tags,
      successStatus: 201,
      request: { body: RoleBody },
      responses: { 201: one, 409: { description: 'Name taken' } },
      handler: async ({ body }) => toRoleResponse(await roles.create(body)),
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspace-roles/:name',
      summary: 'Change the permissions of a workspace role',
      tags,
      request: { params: RoleParams, body: RoleBody.omit({ name: true }) },
      responses: { 200: one, 403: builtin, 404: { description: 'No such role' } },
      handler: async ({ params, body }) => toRoleResponse(await roles.update(params.name, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/workspace-roles/:name',
      summary: 'Delete a workspace role no member holds',
      tags,
      request: { params: RoleParams },
      responses: {
        200: { description: 'Deleted', schema: Deleted },
        403: builtin,
        404: { description: 'No such role' },
        409: { description: 'Still held by members' },
      },
      handler: async ({ params }) => {
        await roles.remove(params.name);
        return { deleted: true };
      },
    }),
  ];
}
