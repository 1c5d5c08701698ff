/**
 * The first factor, shared by the dashboard login and the Basic-auth API: e-mail and password
 * against the account's scrypt hash. An unknown e-mail costs a full hash too (no timing
 * difference tells which accounts exist), and after LOGIN_MAX_ATTEMPTS consecutive failures
 * the account is locked for LOGIN_LOCK_MINUTES — refused even with the right password, so a
 * guesser learns nothing during the lock.
 *
 * Successful checks are remembered for a minute under an HMAC of the credentials with a key
 * that lives only in this process: the license API is asked on every login of every tenant, and
 * 0.4 s of scrypt per call would make it the slowest step of a login. A remembered check still
 * re-reads the account, so a changed password, a lock or a deactivation counts at once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { UNUSABLE_HASH, verifyPassword } from '@pelita/kit';
import type { Pool } from 'pg';
import { accountByEmail, accountById, type Account } from '../admins/accounts';

export interface PasswordCheckOptions {
  pool: Pool;
  maxAttempts: number;
  lockMinutes: number;
  now?: () => Date;
}

export type PasswordOutcome =
  { ok: true; account: Account } | { ok: false; reason: 'invalid' | 'locked' | 'inactive' };

const REMEMBER_MS = 60_000;

export function createPasswordCheck(options: PasswordCheckOptions) {
  const { pool, maxAttempts, lockMinutes } = options;
  const now = options.now ?? (() => new Date());
  const key = randomBytes(32);
  const remembered = new Map<string, { accountId: string; hash: string; until: number }>();

  const fingerprint = (email: string, password: string) =>
    createHmac('sha256', key)
      .update(email.toLowerCase())
      .update('\u0000')
      .update(password)
      .digest('base64');

  async function recordFailure(account: Account): Promise<void> {
    await pool.query(
      `update admin_users
       set failed_attempts = failed_attempts + 1,
           locked_until = case when failed_attempts + 1 >= $2
                               then $3::timestamptz else locked_until end
       where id = $1`,
      [account.id, maxAttempts, new Date(now().getTime() + lockMinutes * 60_000)],
    );
  }

  async function check(email: string, password: string): Promise<PasswordOutcome> {
    const print = fingerprint(email, password);
    const memo = remembered.get(print);
    if (memo && memo.until > now().getTime()) {
      const account = await accountById(pool, memo.accountId);
      if (account && account.password_hash === memo.hash) return settle(account, true);
    }
    const account = await accountByEmail(pool, email);
    const matches = await verifyPassword(password, account?.password_hash ?? UNUSABLE_HASH);
    if (!account) return { ok: false, reason: 'invalid' };
    const outcome = await settle(account, matches);
    if (outcome.ok) {
      if (remembered.size > 1000) remembered.clear();
      remembered.set(print, {
        accountId: account.id,
        hash: account.password_hash,
        until: now().getTime() + REMEMBER_MS,
      });
    }
    return outcome;
  }

  async function settle(account: Account, matches: boolean): Promise<PasswordOutcome> {
    if (account.locked_until && account.locked_until > now())
      return { ok: false, reason: 'locked' };
    if (!matches) {
      await recordFailure(account);
      return { ok: false, reason: 'invalid' };
    }
    if (!account.is_active) return { ok: false, reason: 'inactive' };
    if (account.failed_attempts > 0 || account.locked_until) {
      await pool.query(
        'update admin_users set failed_attempts = 0, locked_until = null where id = $1',
        [account.id],
      );
    }
    return { ok: true, account };
  }

  return { check, recordFailure };
}

export type PasswordCheck = ReturnType<typeof createPasswordCheck>;
