/** Self-registration: an account with the registration role, counted against the license. */
import { HttpError, conflict } from '@pelita/kit';
import { hashPassword } from '../credentials/passwords';
import { isUniqueViolation } from '../db/unique-violation';
import type { LicenseCheck } from '../license/license-check';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import type { RoleRepository } from '../roles/role-repository';
import type { UserRepository } from '../users/user-repository';

export interface RegistrationDeps {
  /** REGISTRATION_ENABLED. */
  enabled: boolean;
  users: Pick<UserRepository, 'insert' | 'countActive' | 'withSeatLock'>;
  roles: Pick<RoleRepository, 'findByName'>;
  license: Pick<LicenseCheck, 'assertLicensed'>;
  roleData: RoleDataChanges;
  /** Name of the role new accounts get (`REGISTRATION_ROLE`). */
  registrationRole: string;
}

export interface NewAccount {
  email: string;
  username: string;
  fullName: string;
  password: string;
}

export function createRegistration(deps: RegistrationDeps) {
  return {
    /** Creates the account; returns its id. */
    async register(account: NewAccount): Promise<string> {
      if (!deps.enabled)
        throw new HttpError(403, 'registration_disabled', 'Self-registration is switched off here');
      const role = await deps.roles.findByName(deps.registrationRole);
      if (!role) {
        throw new HttpError(503, 'registration_unavailable', 'Registration role is not configured');
      }
      const passwordHash = await hashPassword(account.password);
      try {
        // Under the seat lock: counting and adding cannot interleave with another new account.
        const id = await deps.users.withSeatLock(async () => {
          await deps.license.assertLicensed({
            addingUser: true,
            activeUsers: () => deps.users.countActive(),
          });
          return deps.roleData.apply(['role-users'], (db) =>
            deps.users.insert(
              {
                email: account.email,
                username: account.username,
                fullName: account.fullName,
                passwordHash,
                roleId: role.id,
              },
              db,
            ),
          );
        });
        return id;
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('E-mail or username is already registered');
        throw err;
      }
    },
  };
}

export type Registration = ReturnType<typeof createRegistration>;
