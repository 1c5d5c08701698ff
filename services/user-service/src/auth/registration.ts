/**
 * Self-registration: an account with the registration role that waits for its owner to follow
 * the link mailed to it (`email-verification.ts`) before it can log in or take a license seat.
 */
import { HttpError, conflict, type PasswordHasher } from '@pelita/kit';
import { isUniqueViolation } from '../db/unique-violation';
import type { LicenseCheck } from '../license/license-check';
import type { RoleDataChanges } from '../policy-sync/role-data-changes';
import type { RoleRepository } from '../roles/role-repository';
import type { UserRepository } from '../users/user-repository';
import type { EmailVerification } from './email-verification';

export interface RegistrationDeps {
  /** REGISTRATION_ENABLED. */
  enabled: boolean;
  users: Pick<UserRepository, 'insert' | 'removeStaleUnverified'>;
  roles: Pick<RoleRepository, 'findByName'>;
  license: Pick<LicenseCheck, 'assertLicensed'>;
  roleData: RoleDataChanges;
  verification: Pick<EmailVerification, 'sendFirstLink'>;
  /** Name of the role new accounts get (`REGISTRATION_ROLE`). */
  registrationRole: string;
  /** EMAIL_VERIFICATION_TTL_SECONDS: an account unverified for longer gives its names back. */
  verificationTtlSeconds: number;
  passwords: Pick<PasswordHasher, 'hash'>;
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
      const passwordHash = await deps.passwords.hash(account.password);
      try {
        // The installation must be licensed; the seat is taken (and checked) at verification.
        await deps.license.assertLicensed({ addingUser: false });
        // Not in OPA's data until verified: no policy-sync row yet.
        const id = await deps.roleData.apply([], async (db) => {
          // Someone may have registered this address (or name) and never confirmed it: once its
          // link expired, the account gives way instead of locking the owner out for good.
          await deps.users.removeStaleUnverified(
            account.email,
            account.username,
            deps.verificationTtlSeconds,
            db,
          );
          return deps.users.insert(
            {
              email: account.email,
              username: account.username,
              fullName: account.fullName,
              passwordHash,
              roleId: role.id,
              emailVerified: false,
            },
            db,
          );
        });
        deps.verification.sendFirstLink({ id, email: account.email });
        return id;
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('E-mail or username is already registered');
        throw err;
      }
    },
  };
}

export type Registration = ReturnType<typeof createRegistration>;
