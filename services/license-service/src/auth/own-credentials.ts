/**
 * A signed-in account changing its own credentials: its password (the current one checked first,
 * counted like a dashboard login; every other session ends) and its recovery codes (a current
 * TOTP code asked first, taken once like at sign-in; the old codes stop working).
 */
import { MASKED_VALUE, type PasswordHasher } from '@pelita/kit';
import type { Pool } from 'pg';
import { recordActivity, type Actor } from '../activity/activity-log';
import { renewRecoveryCodes, setPasswordHash } from '../admins/account-credentials';
import type { Account } from '../admins/accounts';
import type { FieldErrors } from '../records/form-input';
import type { PasswordCheck } from './password-check';
import { hashRecoveryCode, newRecoveryCodes } from './recovery-codes';
import type { SessionStore } from './session-store';
import { acceptedStep } from './totp';

export const MIN_PASSWORD = 12;

export function createOwnCredentials(options: {
  pool: Pool;
  passwords: PasswordCheck;
  hasher: Pick<PasswordHasher, 'hash'>;
  sessions: SessionStore;
}) {
  const { pool, passwords, hasher, sessions } = options;
  return {
    /**
     * The new password stored, every session of the account ended and a new one made for this
     * browser (its id returned); or the fields' errors.
     */
    async changePassword(
      actor: Actor,
      account: Account,
      form: { current: string; next: string; confirm: string },
    ): Promise<{ ok: true; sessionId: string } | { ok: false; errors: FieldErrors }> {
      const errors: FieldErrors = {};
      if (form.next.length < MIN_PASSWORD || form.next.length > 200)
        errors.new_password = `At least ${MIN_PASSWORD} characters`;
      else if (form.next !== form.confirm)
        errors.confirm_password = 'Does not match the new password';
      if (Object.keys(errors).length === 0) {
        const outcome = await passwords.check({
          email: account.email,
          password: form.current.slice(0, 500),
          surface: 'dashboard',
          address: actor.ip ?? '',
        });
        if (!outcome.ok) errors.current_password = 'Not your current password';
      }
      if (Object.keys(errors).length > 0) return { ok: false, errors };
      await setPasswordHash(pool, account.id, await hasher.hash(form.next));
      await recordActivity(pool, actor, 'admin.password', 'admin', account.id, [
        { field: 'password_hash', before: MASKED_VALUE, after: MASKED_VALUE },
      ]);
      // Every other session of the account ends; this browser continues in a new one.
      await sessions.destroyAllOf(account.id);
      return { ok: true, sessionId: await sessions.create(account.id, 'full') };
    },

    /** Ten new recovery codes (shown once), or null when the TOTP code is not valid. */
    async renewRecoveryCodes(
      actor: Actor,
      account: Account,
      code: string,
    ): Promise<string[] | null> {
      const step = account.totp_secret
        ? acceptedStep(
            account.totp_secret,
            code.trim(),
            account.totp_last_step === null ? null : Number(account.totp_last_step),
          )
        : null;
      const codes = newRecoveryCodes();
      const stored =
        step !== null &&
        (await renewRecoveryCodes(pool, account.id, step, codes.map(hashRecoveryCode)));
      if (!stored) {
        await passwords.recordFailure(account, 'dashboard');
        return null;
      }
      await recordActivity(pool, actor, 'admin.recovery_codes', 'admin', account.id, [
        { field: 'recovery_code_hashes', before: MASKED_VALUE, after: MASKED_VALUE },
      ]);
      return codes;
    },
  };
}

export type OwnCredentials = ReturnType<typeof createOwnCredentials>;
