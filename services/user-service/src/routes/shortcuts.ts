/** GET/PUT /roles/:id/shortcuts, and GET /me/shortcuts (the caller's role's list). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { Shortcuts } from '../roles/shortcuts';
import { IntId } from '../schemas/common';
import { ShortcutListBody, ShortcutListResponse, toShortcutList } from '../schemas/shortcuts';
import { recorded } from './recorded';
import type { RouteContext } from './route-context';

export function shortcutRoutes(shortcuts: Shortcuts, { actorOf }: RouteContext): RouteDefinition[] {
  const tags = ['shortcuts'];
  const list = { description: 'The shortcut list', schema: ShortcutListResponse };
  return [
    defineRoute({
      method: 'get',
      path: '/roles/:id/shortcuts',
      summary: "A role's shortcut access list",
      tags,
      request: { params: IntId },
      responses: { 200: list, 404: { description: 'No such role' } },
      handler: async ({ params }) => toShortcutList(params.id, await shortcuts.ofRole(params.id)),
    }),
    defineRoute({
      method: 'put',
      path: '/roles/:id/shortcuts',
      summary: "Replace a role's shortcut access list (a role below your level)",
      tags,
      request: { params: IntId, body: ShortcutListBody },
      responses: {
        200: list,
        400: { description: 'Duplicate names' },
        403: { description: 'Role not below your level' },
        404: { description: 'No such role' },
      },
      handler: async ({ params, body }, req, res) => {
        const actor = await actorOf(req);
        const before = toShortcutList(params.id, await shortcuts.ofRole(params.id));
        const after = await shortcuts.replace(actor, params.id, body.shortcuts);
        return recorded(res, before, toShortcutList(params.id, after));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/me/shortcuts',
      summary: "The caller's shortcut access list (of their role)",
      tags,
      responses: { 200: list },
      handler: async (_input, req) => {
        const own = await shortcuts.ofActor(await actorOf(req));
        return toShortcutList(own.roleId, own.shortcuts);
      },
    }),
  ];
}
