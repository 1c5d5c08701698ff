/** /roles: list, read, create, change, delete (only below the caller's level). */
import { Deleted, defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { Roles } from '../roles/roles';
import { IntId } from '../schemas/common';
import { RoleBody, RoleListResponse, RoleResponse, toRoleResponse } from '../schemas/roles';
import { recorded } from './recorded';
import { noActor, type RouteContext } from './route-context';

export function roleRoutes(roles: Roles, { actorOf, time }: RouteContext): RouteDefinition[] {
  const tags = ['roles'];
  const one = { description: 'The role', schema: RoleResponse };
  const missing = { description: 'No such role' };
  const notBelow = { description: 'Level not below yours' };
  const asAnswer = (row: Parameters<typeof toRoleResponse>[0]) => toRoleResponse(row, time);
  return [
    // Reads need no actor; the writes below record their changes, which resourceRoutes cannot.
    ...resourceRoutes(
      {
        tags,
        path: '/roles',
        item: '/:id',
        params: { item: IntId },
        caller: noActor,
        one: { ...one, from: asAnswer },
        missing: missing.description,
      },
      {
        list: {
          summary: 'All roles, top level first',
          page: { description: 'Roles', schema: RoleListResponse },
          run: () => roles.list(),
        },
        show: { summary: 'One role', run: (_caller, { id }) => roles.get(id) },
      },
    ),
    defineRoute({
      method: 'post',
      path: '/roles',
      summary: 'Create a role below your level',
      tags,
      successStatus: 201,
      request: { body: RoleBody },
      responses: { 201: one, 403: notBelow, 409: { description: 'Name taken' } },
      handler: async ({ body }, req, res) =>
        recorded(res, null, asAnswer(await roles.create(await actorOf(req), body))),
    }),
    defineRoute({
      method: 'put',
      path: '/roles/:id',
      summary: 'Change a role below your level',
      tags,
      request: { params: IntId, body: RoleBody },
      responses: { 200: one, 403: notBelow, 404: missing, 409: { description: 'Name taken' } },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = asAnswer(await roles.get(params.id));
        return recorded(res, before, asAnswer(await roles.update(actor, params.id, body)));
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
        403: notBelow,
        404: missing,
        409: { description: 'Users still hold the role' },
      },
      handler: async ({ params }, req, res) => {
        const actor = await actorOf(req);
        const before = asAnswer(await roles.get(params.id));
        await roles.remove(actor, params.id);
        recorded(res, before, null);
        return { deleted: true as const };
      },
    }),
  ];
}
