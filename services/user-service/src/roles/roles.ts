/** Roles with a hierarchical level: an actor creates, changes and deletes only roles below their own. */
import { conflict } from '@pelita/kit';
import { assertBelow, type Actor } from '../actor';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import { found } from '../db/found';
import { isUniqueViolation } from '../db/unique-violation';
import type { RoleInput, RoleRepository, Role } from './role-repository';

export function createRoles(roles: RoleRepository, changes: RoleDataChanges) {
  const existing = async (id: number): Promise<Role> => found(await roles.find(id), `Role ${id}`);
  const uniqueName = (err: unknown) =>
    isUniqueViolation(err) ? conflict('A role with this name already exists') : err;

  return {
    list: () => roles.list(),
    get: existing,

    async create(actor: Actor, input: RoleInput): Promise<Role> {
      assertBelow(actor, input.level, 'roles');
      return changes
        .apply(['role-grants'], (db) => roles.insert(input, db))
        .catch((err: unknown) => {
          throw uniqueName(err);
        });
    },

    async update(actor: Actor, id: number, input: RoleInput): Promise<Role> {
      assertBelow(actor, (await existing(id)).level, 'roles');
      assertBelow(actor, input.level, 'roles');
      // A rename changes both mappings' keys.
      const role = await changes
        .apply(['role-users', 'role-grants'], (db) => roles.update(id, input, db))
        .catch((err: unknown) => {
          throw uniqueName(err);
        });
      return found(role, `Role ${id}`);
    },

    async remove(actor: Actor, id: number): Promise<void> {
      assertBelow(actor, (await existing(id)).level, 'roles');
      if ((await roles.countUsers(id)) > 0) {
        throw conflict('The role still has users; move them to another role first');
      }
      await changes.apply(['role-grants'], (db) => roles.remove(id, db));
    },
  };
}

export type Roles = ReturnType<typeof createRoles>;
