/** /roles: list, read, create, change, delete (only below the caller's level). */
import type { RouteDefinition } from '@pelita/kit';
import type { Roles } from '../roles/roles';
import { IntId } from '../schemas/common';
import { RoleBody, RoleListResponse, RoleResponse, toRoleResponse } from '../schemas/roles';
import { recordedResourceRoutes } from './recorded-resource';
import type { RouteContext } from './route-context';

export function roleRoutes(roles: Roles, { actorOf, time }: RouteContext): RouteDefinition[] {
  const notBelow = 'Level not below yours';
  return recordedResourceRoutes(
    actorOf,
    {
      tags: ['roles'],
      path: '/roles',
      item: '/:id',
      params: { item: IntId },
      one: {
        description: 'The role',
        schema: RoleResponse,
        from: (row) => toRoleResponse(row, time),
      },
      missing: 'No such role',
    },
    {
      list: {
        summary: 'All roles, top level first',
        page: { description: 'Roles', schema: RoleListResponse },
        run: () => roles.list(),
      },
      show: { summary: 'One role', run: ({ id }) => roles.get(id) },
      create: {
        summary: 'Create a role below your level',
        body: RoleBody,
        answers: { 403: notBelow, 409: 'Name taken' },
        run: (actor, body) => roles.create(actor, body),
      },
      change: {
        summary: 'Change a role below your level',
        method: 'put',
        body: RoleBody,
        answers: { 403: notBelow, 409: 'Name taken' },
        run: (actor, { id }, body) => roles.update(actor, id, body),
      },
      remove: {
        summary: 'Delete a role below your level that no user holds',
        answers: { 403: notBelow, 409: 'Users still hold the role' },
        run: (actor, { id }) => roles.remove(actor, id),
      },
    },
  );
}
