/**
 * User management. An actor manages users whose role is below their own level and gives only
 * such roles; anyone may change their own name, e-mail and full name.
 */
import { badRequest, conflict, forbidden, notFound } from '@pelita/kit';
import { assertBelow, type Actor } from '../access/actor';
import { hashPassword } from '../auth/passwords';
import type { SessionStore } from '../auth/session-store';
import type { UserNameCopy } from '../core-backend/user-name-copy';
import type { LicenseCheck } from '../license/license-check';
import type { SyncTrigger } from '../policy-sync/sync-trigger';
import type { RoleRepository } from '../roles/role-repository';
import {
  isUniqueViolation,
  type UserChanges,
  type UserRepository,
  type UserRow,
} from './user-repository';

export interface NewUserInput {
  email: string;
  username: string;
  full_name: string;
  password: string;
  role_id: number;
}

export interface UserUpdateInput {
  email?: string | undefined;
  username?: string | undefined;
  full_name?: string | undefined;
  role_id?: number | undefined;
  is_active?: boolean | undefined;
}

export interface UsersDeps {
  users: UserRepository;
  roles: RoleRepository;
  sessions: SessionStore;
  syncTrigger: SyncTrigger;
  userNameCopy: UserNameCopy;
  license: LicenseCheck;
}

const taken = (err: unknown) =>
  isUniqueViolation(err) ? conflict('E-mail or username is already in use') : err;

export function createUsers({
  users,
  roles,
  sessions,
  syncTrigger,
  userNameCopy,
  license,
}: UsersDeps) {
  async function existing(id: string): Promise<UserRow> {
    const user = await users.find(id);
    if (!user) throw notFound(`User ${id} not found`);
    return user;
  }
  async function assignableRole(actor: Actor, roleId: number): Promise<void> {
    const role = await roles.find(roleId);
    if (!role) throw badRequest(`Role ${roleId} does not exist`);
    assertBelow(actor, role.level, 'roles');
  }

  return {
    list: (page: number, limit: number) => users.list(page, limit),
    get: existing,

    async create(actor: Actor, input: NewUserInput): Promise<UserRow> {
      await assignableRole(actor, input.role_id);
      await license.assertLicensed({ addingUser: true, activeUsers: () => users.countActive() });
      const id = await users
        .insert({
          email: input.email,
          username: input.username,
          fullName: input.full_name,
          passwordHash: await hashPassword(input.password),
          roleId: input.role_id,
        })
        .catch((err: unknown) => {
          throw taken(err);
        });
      syncTrigger.trigger('role-users');
      return existing(id);
    },

    async update(actor: Actor, id: string, input: UserUpdateInput): Promise<UserRow> {
      const before = await existing(id);
      const self = before.id === actor.id;
      const managesAccess = input.role_id !== undefined || input.is_active !== undefined;
      if (self && managesAccess)
        throw forbidden('Your own role and status are changed by someone above you');
      if (!self) assertBelow(actor, before.role_level, 'users');
      if (input.role_id !== undefined) await assignableRole(actor, input.role_id);
      const changes: UserChanges = {
        email: input.email,
        username: input.username,
        fullName: input.full_name,
        roleId: input.role_id,
        isActive: input.is_active,
      };
      await users.update(id, changes).catch((err: unknown) => {
        throw taken(err);
      });
      const after = await existing(id);
      if (!after.is_active && before.is_active) await sessions.revokeAllOf(id);
      if (
        after.username !== before.username ||
        after.role_id !== before.role_id ||
        after.is_active !== before.is_active
      ) {
        syncTrigger.trigger('role-users');
      }
      userNameCopy.copy(after);
      return after;
    },

    async remove(actor: Actor, id: string): Promise<void> {
      const user = await existing(id);
      if (user.id === actor.id) throw forbidden('You cannot delete your own account');
      assertBelow(actor, user.role_level, 'users');
      await users.remove(id);
      await sessions.revokeAllOf(id);
      syncTrigger.trigger('role-users');
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
