/** /roles: list, read, create, change, delete (only below the caller's level). */
import { defineRoute, describeChanges, recordChanges, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
import type { Actor } from '../actor';
import type { Roles } from '../roles/roles';
import { Deleted, IntId } from '../schemas/common';
import { RoleBody, RoleListResponse, RoleResponse, toRoleResponse } from '../schemas/roles';
import type { FormatTimestamp } from '../timestamps';

export function roleRoutes(
  roles: Roles,
  actorOf: (req: Request) => Promise<Actor>,
  time: FormatTimestamp,
): RouteDefinition[] {
  const tags = ['roles'];
  const one = { description: 'The role', schema: RoleResponse };
  return [
    defineRoute({
      method: 'get',
      path: '/roles',
      summary: 'All roles, top level first',
      tags,
      responses: { 200: { description: 'Roles', schema: RoleListResponse } },
      handler: async () => ({ data: (await roles.list()).map((row) => toRoleResponse(row, time)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/roles/:id',
      summary: 'One role',
      tags,
      request: { params: IntId },
      responses: { 200: one, 404: { description: 'No such role' } },
      handler: async ({ params }) => toRoleResponse(await roles.get(params.id), time),
    }),
    defineRoute({
      method: 'post',
      path: '/roles',
      summary: 'Create a role below your level',
      tags,
      successStatus: 201,
      request: { body: RoleBody },
      responses: {
        201: one,
        403: { description: 'Level not below yours' },
        409: { description: 'Name taken' },
      },
      handler: async ({ body }, req, res) => {
        const created = toRoleResponse(await roles.create(await actorOf(req), body), time);
        recordChanges(res, describeChanges(null, created));
        return created;
      },
    }),
    defineRoute({
      method: 'put',
      path: '/roles/:id',
      summary: 'Change a role below your level',
      tags,
      request: { params: IntId, body: RoleBody },
      responses: {
        200: one,
        403: { description: 'Level not below yours' },
        404: { description: 'No such role' },
        409: { description: 'Name taken' },
      },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = toRoleResponse(await roles.get(params.id), time);
        const after = toRoleResponse(await roles.update(actor, params.id, body), time);
        recordChanges(res, describeChanges(before, after));
        return after;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/roles/:id',
      summary: 'Delete a role below your level that no user holds',
      tags,
      request: { params: IntId },
      responses: {
        200: { description: 'Deleted', schema: Deleted },
        403: { description: 'Level not below yours' },
        404: { description: 'No such role' },
        409: { description: 'Users still hold the role' },
      },
      handler: async ({ params }, req, res) => {
        const actor = await actorOf(req);
        const before = toRoleResponse(await roles.get(params.id), time);
        await roles.remove(actor, params.id);
        recordChanges(res, describeChanges(before, null));
        return { deleted: true as const };
      },
    }),
  ];
}
