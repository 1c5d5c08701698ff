/** Shortcut access lists per role: anyone reads, only an actor above the role replaces. */
import { badRequest } from '@pelita/kit';
import { assertBelow, type Actor } from '../actor';
import { found } from '../db/found';
import type { RoleRepository } from './role-repository';
import type { ShortcutFields, ShortcutRepository, Shortcut } from './shortcut-repository';

export function createShortcuts(shortcuts: ShortcutRepository, roles: RoleRepository) {
  const role = async (id: number) => found(await roles.find(id), `Role ${id}`);
  return {
    async ofRole(roleId: number): Promise<Shortcut[]> {
      await role(roleId);
      return shortcuts.list(roleId);
    },
    /** The list of the actor's own role (`GET /me/shortcuts`). */
    async ofActor(actor: Actor): Promise<{ roleId: number; shortcuts: Shortcut[] }> {
      return { roleId: actor.roleId, shortcuts: await shortcuts.list(actor.roleId) };
    },
    async replace(actor: Actor, roleId: number, list: ShortcutFields[]): Promise<Shortcut[]> {
      assertBelow(actor, (await role(roleId)).level, 'roles');
      const names = new Set(list.map((s) => s.name));
      if (names.size !== list.length)
        throw badRequest('Shortcut names must be unique within a role');
      await shortcuts.replace(roleId, list);
      return shortcuts.list(roleId);
    },
  };
}

export type Shortcuts = ReturnType<typeof createShortcuts>;
