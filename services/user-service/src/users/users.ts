/**
 * User management. An actor manages users whose role is below their own level and gives only
 * such roles; anyone may change their own name, e-mail and full name — their e-mail only with
 * their current password (a stolen access token must not become a permanent takeover through
 * an e-mail change and a reset), and only once the link mailed to the new address is followed
 * (`email-change.ts`); the old address is told. An administrator's change of another user's
 * address takes effect at once (they vouch for it, as for the accounts they create). A new
 * username ends the user's sessions: OPA decides by the username in the token, which another
 * user could take next.
 */
import { badRequest, conflict, forbidden, HttpError, type PasswordHasher } from '@pelita/kit';
import { assertManagesUser, type Actor } from '../actor';
import type { SessionStore } from '../credentials/session-store';
import type { UserNameCopy } from '../core-backend/user-name-copy';
import type { LicenseCheck } from '../license/license-check';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import type { RoleRepository } from '../roles/role-repository';
import { found } from '../db/found';
import { isUniqueViolation } from '../db/unique-violation';
import type { EmailChange } from './email-change';
import type { NewUserInput, User, UserChanges, UserRepository } from './user-repository';

export interface UsersDeps {
  users: UserRepository;
  roles: RoleRepository;
  sessions: SessionStore;
  roleData: RoleDataChanges;
  userNameCopy: UserNameCopy;
  license: LicenseCheck;
  emailChange: Pick<EmailChange, 'request' | 'addressChanged'>;
  passwords: Pick<PasswordHasher, 'hash' | 'verify'>;
}

/** A user as changed; `pendingEmail` when their own new address waits for its link to be followed. */
export type UpdatedUser = User & { pendingEmail?: string };

const taken = (err: unknown) =>
  isUniqueViolation(err) ? conflict('E-mail or username is already in use') : err;

export function createUsers({
  users,
  roles,
  sessions,
  roleData,
  userNameCopy,
  license,
  emailChange,
  passwords,
}: UsersDeps) {
  const existing = async (id: string): Promise<User> => found(await users.find(id), `User ${id}`);
  /** Call holding the seat lock: the license check and the change that takes the seat. */
  const assertSeatFree = () =>
    license.assertLicensed({ addingUser: true, activeUsers: () => users.countActive() });
  async function assignableRole(actor: Actor, roleId: number): Promise<void> {
    const role = await roles.find(roleId);
    if (!role) throw badRequest(`Role ${roleId} does not exist`);
    assertManagesUser(actor, role.level);
  }

  return {
    list: (page: number, limit: number) => users.list(page, limit),
    get: existing,

    async create(actor: Actor, input: NewUserInput): Promise<User> {
      await assignableRole(actor, input.roleId);
      const passwordHash = await passwords.hash(input.password);
      const id = await users.withSeatLock(async () => {
        await assertSeatFree();
        return roleData
          .apply(['role-users'], (db) =>
            users.insert(
              {
                email: input.email,
                username: input.username,
                fullName: input.fullName,
                passwordHash,
                roleId: input.roleId,
              },
              db,
            ),
          )
          .catch((err: unknown) => {
            throw taken(err);
          });
      });
      const created = await existing(id);
      // The core backend knows users by these copies: a new user can be added to a workspace.
      userNameCopy.copy(created);
      return created;
    },

    async update(
      actor: Actor,
      id: string,
      changes: UserChanges,
      currentPassword?: string,
    ): Promise<UpdatedUser> {
      const before = await existing(id);
      const self = before.id === actor.id;
      const newEmail = changes.email !== undefined && changes.email !== before.email;
      if (self && newEmail) {
        const confirmed =
          currentPassword !== undefined &&
          (await passwords.verify(currentPassword, before.passwordHash));
        if (!confirmed)
          throw new HttpError(
            403,
            'password_confirmation_required',
            'Changing your own e-mail needs your current password (current_password)',
          );
      }
      const managesAccess = changes.roleId !== undefined || changes.isActive !== undefined;
      if (self && managesAccess)
        throw forbidden('Your own role and status are changed by someone above you');
      if (!self) assertManagesUser(actor, before.roleLevel);
      if (changes.roleId !== undefined) await assignableRole(actor, changes.roleId);
      // Your own new address: mailed a link now, changed when it is followed.
      const pendingEmail = self && newEmail ? changes.email : undefined;
      if (pendingEmail !== undefined) await emailChange.request(before, pendingEmail);
      const saved = pendingEmail === undefined ? changes : { ...changes, email: undefined };
      // What OPA knows of a user: their name, their role, and whether they are active.
      const differs = <K extends keyof UserChanges & keyof User>(key: K) =>
        changes[key] !== undefined && changes[key] !== before[key];
      const targets =
        differs('username') || differs('roleId') || differs('isActive')
          ? (['role-users'] as const)
          : [];
      const save = () =>
        roleData
          .apply(targets, (db) => users.update(id, saved, db))
          .catch((err: unknown) => {
            throw taken(err);
          });
      // Reactivating takes a seat, as creating does.
      if (changes.isActive === true && !before.isActive)
        await users.withSeatLock(async () => {
          await assertSeatFree();
          await save();
        });
      else await save();
      const after = await existing(id);
      if ((!after.isActive && before.isActive) || after.username !== before.username)
        await sessions.revokeAllOf(id);
      if (after.email !== before.email)
        await emailChange.addressChanged(id, before.email, after.email);
      userNameCopy.copy(after);
      return pendingEmail === undefined ? after : { ...after, pendingEmail };
    },

    /** A user's live sessions (a user below the caller's level, or the caller's own). */
    async sessions(actor: Actor, id: string) {
      const user = await existing(id);
      if (user.id !== actor.id) assertManagesUser(actor, user.roleLevel);
      return sessions.listOf(id);
    },

    /** Ends one session of a user, or all of them (`sid` unset). */
    async endSessions(actor: Actor, id: string, sid?: string): Promise<void> {
      const user = await existing(id);
      if (user.id !== actor.id) assertManagesUser(actor, user.roleLevel);
      if (sid === undefined) return sessions.revokeAllOf(id);
      if ((await sessions.ownerOf(sid)) !== id) {
        throw new HttpError(404, 'session_not_found', `The user has no session ${sid}`);
      }
      await sessions.revoke(sid);
    },

    async remove(actor: Actor, id: string): Promise<void> {
      const user = await existing(id);
      if (user.id === actor.id) throw forbidden('You cannot delete your own account');
      assertManagesUser(actor, user.roleLevel);
      await roleData.apply(['role-users'], (db) => users.remove(id, db));
      await sessions.revokeAllOf(id);
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
