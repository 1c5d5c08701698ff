/**
 * License validation at login, registration and user creation: the client must exist and be
 * active, hold at least one active license that has not expired, and (when adding a user) stay
 * within `max_user`. Each failure is a 403 with its own code; an unreachable license service is
 * a 503 (fail closed). Both must pass: the license service's own verdict (`validation.code`,
 * when it sends one) and these rules on the fields — a code this service does not know is a
 * refusal too, so a rule the license service adds later is never read as a pass.
 */
import { HttpError, type Logger } from '@pelita/kit';
import type { LicenseClient, LicensedClient } from './license-client';

export interface LicenseCheck {
  /** Throws unless the installation is licensed; `addingUser` also checks `max_user`. */
  assertLicensed(options: {
    addingUser: boolean;
    activeUsers?: () => Promise<number>;
  }): Promise<void>;
}

const refused = (code: string, message: string) => new HttpError(403, code, message);

/** The license service's validation codes as this service's refusals. */
const REFUSAL_OF_CODE: Record<string, string> = {
  NOT_FOUND: 'license_not_found',
  CLIENT_INACTIVE: 'license_inactive',
  SUSPENDED: 'license_expired',
  EXPIRED: 'license_expired',
  TOO_MANY_USERS: 'license_user_limit',
};

function assertValidationPasses(validation: LicensedClient['validation']): void {
  if (!validation || (validation.valid && validation.code === 'VALID')) return;
  const detail = validation.detail ? `: ${validation.detail}` : '';
  throw refused(
    REFUSAL_OF_CODE[validation.code] ?? 'license_invalid',
    `The license service refuses the license (${validation.code})${detail}`,
  );
}

export function createLicenseCheck(
  client: LicenseClient | undefined,
  logger: Logger,
  now = () => new Date(),
): LicenseCheck {
  if (!client) {
    logger.warn('LICENSE_API_URL is not set: logins and registrations are not license-checked');
    return { assertLicensed: () => Promise.resolve() };
  }
  return {
    async assertLicensed({ addingUser, activeUsers }) {
      const licensed = await client.fetchClient();
      if (!licensed)
        throw refused('license_not_found', 'No license is registered for this installation');
      assertValidationPasses(licensed.validation);
      if (!licensed.is_active) throw refused('license_inactive', 'The license client is inactive');
      const valid = licensed.licenses.some(
        (license) =>
          license.status &&
          (!license.expired_date || new Date(license.expired_date).getTime() > now().getTime()),
      );
      if (!valid) throw refused('license_expired', 'The license has expired or is not active');
      if (addingUser && activeUsers && licensed.max_user != null) {
        if ((await activeUsers()) >= licensed.max_user) {
          throw refused(
            'license_user_limit',
            `The license allows at most ${licensed.max_user} users`,
          );
        }
      }
    },
  };
}
