/** GET/PUT /roles/:id/shortcuts, and GET /me/shortcuts (the caller's role's list). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { Shortcuts } from '../roles/shortcuts';
import { IntId } from '../schemas/common';
import { ShortcutListBody, ShortcutListResponse, toShortcutList } from '../schemas/shortcuts';
import { recordedResourceRoutes } from './recorded-resource';
import type { RouteContext } from './route-context';

export function shortcutRoutes(shortcuts: Shortcuts, { actorOf }: RouteContext): RouteDefinition[] {
  const tags = ['shortcuts'];
  const list = { description: 'The shortcut list', schema: ShortcutListResponse };
  return [
    // A role's list is one item below /roles: read by anyone, replaced as a recorded change.
    ...recordedResourceRoutes(
      actorOf,
      {
        tags,
        path: '/roles',
        item: '/:id/shortcuts',
        params: { item: IntId },
        one: { ...list, from: toShortcutList },
        missing: 'No such role',
      },
      {
        show: {
          summary: "A role's shortcut access list",
          run: async ({ id }) => ({ roleId: id, shortcuts: await shortcuts.ofRole(id) }),
        },
        change: {
          summary: "Replace a role's shortcut access list (a role below your level)",
          method: 'put',
          body: ShortcutListBody,
          answers: { 400: 'Duplicate names', 403: 'Role not below your level' },
          run: async (actor, { id }, body) => ({
            roleId: id,
            shortcuts: await shortcuts.replace(actor, id, body.shortcuts),
          }),
        },
      },
    ),
    defineRoute({
      method: 'get',
      path: '/me/shortcuts',
      summary: "The caller's shortcut access list (of their role)",
      tags,
      responses: { 200: list },
      handler: async (_input, req) => toShortcutList(await shortcuts.ofActor(await actorOf(req))),
    }),
  ];
}
