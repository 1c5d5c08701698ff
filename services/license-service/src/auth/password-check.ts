/**
 * The first factor, shared by the dashboard login and the Basic-auth API: e-mail and password
 * against the account's scrypt hash. The guards run cheapest first, so refusing costs less than
 * guessing:
 *
 * 1. a success remembered for a minute (below): no hash and no throttle (known-good credentials);
 * 2. the client address's recent failures on this surface (auth/address-throttle.ts): past the
 *    limit, 429 with Retry-After before anything is hashed;
 * 3. scrypt (128 MiB, ~0.4 s) under a cap on concurrent hashes: a request that cannot start one
 *    within PASSWORD_CHECK_MAX_WAIT_MS is answered 503, so a flood from many addresses queues
 *    briefly and is turned away instead of exhausting memory and CPU;
 * 4. the surface's own lock: the dashboard and the license API count failures apart, so wrong
 *    Basic attempts do not lock the dashboard and the other way round. The API's lock spares
 *    addresses from which the account passed lately: guessing from elsewhere cannot lock a
 *    tenant's user service out.
 *
 * An unknown e-mail costs a full hash too (no timing difference tells which accounts exist). A
 * locked account is refused even with the right password, so a guesser learns nothing meanwhile.
 *
 * Successful checks are remembered for a minute under an HMAC of the credentials with a key
 * that lives only in this process: the license API is asked on every login of every tenant, and
 * 0.4 s of scrypt per call would make it the slowest step of a login. A remembered check still
 * re-reads the account, so a changed password, a lock or a deactivation counts at once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createConcurrencyLimit, type PasswordHasher } from '@pelita/kit';
import type { Pool } from 'pg';
import {
  clearPasswordFailures,
  countPasswordFailure,
  isKnownApiAddress,
  rememberApiAddress,
} from '../admins/account-locks';
import { accountByEmail, accountById, replacePasswordHash, type Account } from '../admins/accounts';
import type { LicenseMetrics } from '../metrics';
import type { AddressThrottle, Surface } from './address-throttle';

export interface PasswordCheckOptions {
  pool: Pool;
  maxAttempts: number;
  lockMinutes: number;
  throttle: AddressThrottle;
  /** Hashes running at once, and how long a check may wait for its turn. */
  hashing: { concurrency: number; maxWaitMs: number };
  /**
   * The stored hashes' scrypt; unknown e-mails are checked against its unusable hash, and a hash
   * of a lower cost is replaced at the account's next successful check.
   */
  hasher: Pick<PasswordHasher, 'hash' | 'verify' | 'needsRehash' | 'unusableHash'>;
  metrics: LicenseMetrics;
  now?: () => Date;
}

export interface PasswordAttempt {
  email: string;
  password: string;
  surface: Surface;
  /** The client's address (express's `req.ip`, behind TRUST_PROXY proxies). */
  address: string;
}

export type PasswordOutcome =
  | { ok: true; account: Account }
  | { ok: false; reason: 'invalid' | 'locked' | 'inactive' }
  | { ok: false; reason: 'throttled' | 'busy'; retryAfterSeconds: number };

const REMEMBER_MS = 60_000;
/** The license API's lock spares addresses that passed within this many days. */
const KNOWN_ADDRESS_DAYS = 30;
/** A known address is written again at most this often (each API call would write otherwise). */
const KNOWN_ADDRESS_REFRESH_MS = 10 * 60_000;
/** Checks queued for a hash beyond this are turned away at once. */
const MAX_QUEUED = 100;

export function createPasswordCheck(options: PasswordCheckOptions) {
  const { pool, maxAttempts, lockMinutes, throttle, hasher, metrics } = options;
  const now = options.now ?? (() => new Date());
  const key = randomBytes(32);
  const remembered = new Map<string, { accountId: string; hash: string; until: number }>();
  const knownWritten = new Map<string, number>();
  const hashes = createConcurrencyLimit(options.hashing.concurrency);

  const fingerprint = (email: string, password: string) =>
    createHmac('sha256', key)
      .update(email.toLowerCase())
      .update('\u0000')
      .update(password)
      .digest('base64');

  async function recordFailure(account: Account, surface: Surface): Promise<void> {
    await countPasswordFailure(
      pool,
      account.id,
      surface,
      maxAttempts,
      new Date(now().getTime() + lockMinutes * 60_000),
    );
  }

  /** scrypt work under the cap; null when no slot freed up in time. */
  async function underCap<T>(work: () => Promise<T>): Promise<T | null> {
    if (hashes.waiting >= MAX_QUEUED) return null;
    const signal = AbortSignal.timeout(options.hashing.maxWaitMs);
    try {
      return await hashes.run(work, signal);
    } catch (err) {
      if (signal.aborted) return null;
      throw err;
    }
  }

  async function check(attempt: PasswordAttempt): Promise<PasswordOutcome> {
    const { email, password, surface, address } = attempt;
    // Credentials that passed a minute ago cost no hash and tell a guesser nothing: they pass
    // even from a throttled address (behind an untrusted proxy every client shares one).
    const print = fingerprint(email, password);
    const memo = remembered.get(print);
    if (memo && memo.until > now().getTime()) {
      const account = await accountById(pool, memo.accountId);
      if (account && account.password_hash === memo.hash) {
        metrics.passwordChecks.inc({ outcome: 'remembered' });
        return settle(account, true, attempt);
      }
    }
    const wait = throttle.retryAfter(surface, address);
    if (wait !== null) {
      metrics.passwordChecks.inc({ outcome: 'throttled' });
      return { ok: false, reason: 'throttled', retryAfterSeconds: wait };
    }
    const account = await accountByEmail(pool, email);
    const stored = account?.password_hash ?? hasher.unusableHash;
    const matches = await underCap(() => hasher.verify(password, stored));
    if (matches === null) {
      metrics.passwordChecks.inc({ outcome: 'busy' });
      return { ok: false, reason: 'busy', retryAfterSeconds: 1 };
    }
    metrics.passwordChecks.inc({ outcome: 'hashed' });
    if (!account) {
      throttle.fail(surface, address);
      return { ok: false, reason: 'invalid' };
    }
    const outcome = await settle(account, matches, attempt);
    if (outcome.ok) {
      const hash = await rehashed(account, password);
      if (remembered.size > 1000) remembered.clear();
      remembered.set(print, {
        accountId: account.id,
        hash,
        until: now().getTime() + REMEMBER_MS,
      });
    }
    return outcome;
  }

  /**
   * A hash of an older, cheaper cost is replaced now that the password is at hand (under the
   * hashing cap, whose wait a busy service may exceed: then it is replaced at a later check).
   */
  async function rehashed(account: Account, password: string): Promise<string> {
    const stored = account.password_hash;
    if (!hasher.needsRehash(stored)) return stored;
    const fresh = await underCap(() => hasher.hash(password));
    if (fresh === null) return stored;
    return (await replacePasswordHash(pool, account.id, stored, fresh)) ? fresh : stored;
  }

  async function locked(account: Account, surface: Surface, address: string): Promise<boolean> {
    if (surface === 'dashboard') {
      return account.dashboard_locked_until !== null && account.dashboard_locked_until > now();
    }
    if (account.locked_until === null || account.locked_until <= now()) return false;
    return !(await isKnownApiAddress(pool, account.id, address, KNOWN_ADDRESS_DAYS));
  }

  async function settle(
    account: Account,
    matches: boolean,
    { surface, address }: PasswordAttempt,
  ): Promise<PasswordOutcome> {
    if (await locked(account, surface, address)) {
      throttle.fail(surface, address);
      return { ok: false, reason: 'locked' };
    }
    if (!matches) {
      await recordFailure(account, surface);
      throttle.fail(surface, address);
      return { ok: false, reason: 'invalid' };
    }
    if (!account.is_active) return { ok: false, reason: 'inactive' };
    const [failures, until] =
      surface === 'dashboard'
        ? [account.dashboard_failed_attempts, account.dashboard_locked_until]
        : [account.failed_attempts, account.locked_until];
    // A known address passing during a lock does not lift it for the others.
    if (failures > 0 && (until === null || until <= now())) {
      await clearPasswordFailures(pool, account.id, surface);
    }
    if (surface === 'api') await rememberAddress(account.id, address);
    return { ok: true, account };
  }

  async function rememberAddress(accountId: string, address: string): Promise<void> {
    const pair = `${accountId} ${address}`;
    if ((knownWritten.get(pair) ?? 0) > now().getTime()) return;
    await rememberApiAddress(pool, accountId, address);
    if (knownWritten.size > 10_000) knownWritten.clear();
    knownWritten.set(pair, now().getTime() + KNOWN_ADDRESS_REFRESH_MS);
  }

  return { check, recordFailure };
}

export type PasswordCheck = ReturnType<typeof createPasswordCheck>;
