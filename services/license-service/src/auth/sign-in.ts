/**
 * Dashboard sign-in in two steps. The password (first factor) makes a half session that can do
 * nothing but pass the second factor within ten minutes: a TOTP code or a recovery code; an
 * account without a TOTP secret enrols one first (its first code verified, recovery codes made).
 * Each step issues a new session id. A completed sign-in is noted in the activity log and sent as
 * a chat notification.
 *
 * Wrong codes are counted twice: per half session (TOTP_MAX_ATTEMPTS, then the password is due
 * again) and per account since its last completed sign-in (SECOND_FACTOR_MAX_FAILURES, then the
 * sign-in is locked and the lock announced). A correct password resets neither count, so
 * "password, four codes, password again" cannot guess on for ever; a locked account's half
 * sessions end, so sessions opened before the lock cannot guess on either.
 */
import type { Pool } from 'pg';
import { recordActivity } from '../activity/activity-log';
import {
  countSecondFactorFailure,
  enrolTotp,
  recordSignIn,
  replaceRecoveryCodes,
  takeTotpStep,
} from '../admins/account-credentials';
import type { Account } from '../admins/accounts';
import { maySignIn } from '../admins/permissions';
import type { LoginNotifier } from '../integrations/login-notifier';
import type { LicenseMetrics } from '../metrics';
import type { PasswordCheck } from './password-check';
import { consumeRecoveryCode, hashRecoveryCode, newRecoveryCodes } from './recovery-codes';
import type { Session, SessionStore } from './session-store';
import { acceptedStep, newTotpSecret, totpQrSvg, totpUri } from './totp';

export interface SignInOptions {
  pool: Pool;
  passwords: PasswordCheck;
  sessions: SessionStore;
  notifier: LoginNotifier;
  metrics: LicenseMetrics;
  totpIssuer: string;
  totpMaxAttempts: number;
  secondFactorMaxFailures: number;
  lockMinutes: number;
  now?: () => Date;
}

/** Who is signing in, as the notification and the activity log name them. */
export interface SignInClient {
  ip: string;
  userAgent: string;
}

/**
 * `api-only`: the password is right but the account's role does not allow the dashboard;
 * `throttled` / `busy`: not checked at all (the address's failures, no hash slot in time).
 */
export type PasswordStep =
  | { ok: false; reason: 'refused' | 'api-only' }
  | { ok: false; reason: 'throttled' | 'busy'; retryAfterSeconds: number }
  | { ok: true; sessionId: string; next: 'enrol' | 'second-factor' };

/** `ended`: the half session is over (too many wrong codes, or the account locked). */
export type CodeStep =
  | { outcome: 'signed-in'; sessionId: string; recovered: boolean }
  | { outcome: 'wrong' }
  | { outcome: 'ended' };

export type EnrolStep =
  | { outcome: 'signed-in'; sessionId: string; recoveryCodes: string[] }
  | { outcome: 'wrong' }
  | { outcome: 'ended' }
  /** No key is being enrolled in this half session: the account has one, it passes a code. */
  | { outcome: 'not-enrolling' }
  /** The account enrolled another key meanwhile (another browser): start again. */
  | { outcome: 'restart' };

export interface Enrolment {
  secret: string;
  uri: string;
  qrSvg: string;
}

export function createSignIn(options: SignInOptions) {
  const { pool, sessions, metrics } = options;
  const now = options.now ?? (() => new Date());
  const locked = (account: Account) =>
    account.dashboard_locked_until !== null && account.dashboard_locked_until > now();

  /** Full session: new id, sign-in recorded (clearing the failure count) and announced. */
  async function complete(session: Session, account: Account, client: SignInClient) {
    metrics.logins.inc({ step: 'second_factor', outcome: 'ok' });
    await sessions.destroy(session);
    const sessionId = await sessions.create(account.id, 'full');
    await recordSignIn(pool, account.id);
    await recordActivity(
      pool,
      { id: account.id, email: account.email, ip: client.ip },
      'admin.login',
      'admin',
      account.id,
      [],
    );
    options.notifier.notify({ name: account.name, email: account.email, ...client, at: now() });
    return sessionId;
  }

  /** A wrong code, counted per half session and per account; at either limit the session ends. */
  async function wrong(
    session: Session,
    account: Account,
    client: SignInClient,
  ): Promise<'wrong' | 'ended'> {
    metrics.logins.inc({ step: 'second_factor', outcome: 'refused' });
    const inSession = await sessions.countTotpFailure(session);
    const onAccount = await countSecondFactorFailure(
      pool,
      account.id,
      options.secondFactorMaxFailures,
      new Date(now().getTime() + options.lockMinutes * 60_000),
    );
    if (onAccount >= options.secondFactorMaxFailures) {
      // Every session ends: whoever typed the codes knows the password, maybe holds more halves.
      await sessions.destroyAllOf(account.id);
      options.notifier.notifyLock({
        name: account.name,
        email: account.email,
        ...client,
        at: now(),
        failures: onAccount,
      });
      return 'ended';
    }
    if (inSession < options.totpMaxAttempts) return 'wrong';
    await sessions.destroy(session);
    return 'ended';
  }

  return {
    /** The first factor; a session given (an earlier half login) is ended either way. */
    async checkPassword(
      email: string,
      password: string,
      previous: Session | null,
      client: SignInClient,
    ): Promise<PasswordStep> {
      const outcome = await options.passwords.check({
        email,
        password,
        surface: 'dashboard',
        address: client.ip,
      });
      const allowed = outcome.ok && maySignIn(outcome.account.permissions);
      metrics.logins.inc({ step: 'password', outcome: allowed ? 'ok' : 'refused' });
      if (!outcome.ok && (outcome.reason === 'throttled' || outcome.reason === 'busy')) {
        return outcome;
      }
      if (!outcome.ok) return { ok: false, reason: 'refused' };
      if (!allowed) return { ok: false, reason: 'api-only' };
      if (previous) await sessions.destroy(previous);
      const { account } = outcome;
      const enrolling = account.totp_secret === null;
      const sessionId = await sessions.create(
        account.id,
        'password',
        enrolling ? newTotpSecret() : null,
      );
      return { ok: true, sessionId, next: enrolling ? 'enrol' : 'second-factor' };
    },

    /** The key being enrolled in this half session, with its QR code; null when none. */
    enrolment(session: Session, account: Account): Enrolment | null {
      const secret = session.pendingTotpSecret;
      if (!secret) return null;
      const uri = totpUri(secret, options.totpIssuer, account.email);
      return { secret, uri, qrSvg: totpQrSvg(uri) };
    },

    /** A TOTP code (each step once) or a recovery code (each once). */
    async checkCode(
      session: Session,
      account: Account,
      code: string,
      client: SignInClient,
    ): Promise<CodeStep> {
      if (locked(account)) {
        await sessions.destroy(session);
        return { outcome: 'ended' };
      }
      if (account.totp_secret && !session.pendingTotpSecret) {
        const step = acceptedStep(
          account.totp_secret,
          code,
          account.totp_last_step === null ? null : Number(account.totp_last_step),
          now().getTime(),
        );
        // The step is stored only if still newer: two requests with one code cannot both pass.
        if (step !== null && (await takeTotpStep(pool, account.id, step))) {
          return {
            outcome: 'signed-in',
            sessionId: await complete(session, account, client),
            recovered: false,
          };
        }
        const remaining = consumeRecoveryCode(code, account.recovery_code_hashes);
        if (
          remaining !== null &&
          (await replaceRecoveryCodes(pool, account.id, account.recovery_code_hashes, remaining))
        ) {
          return {
            outcome: 'signed-in',
            sessionId: await complete(session, account, client),
            recovered: true,
          };
        }
      }
      return { outcome: await wrong(session, account, client) };
    },

    /** Verifies the first code of the key being enrolled; then stores it with recovery codes. */
    async enrol(
      session: Session,
      account: Account,
      code: string,
      client: SignInClient,
    ): Promise<EnrolStep> {
      const secret = session.pendingTotpSecret;
      if (!secret) return { outcome: 'not-enrolling' };
      if (locked(account)) {
        await sessions.destroy(session);
        return { outcome: 'ended' };
      }
      const step = acceptedStep(secret, code, null, now().getTime());
      if (step === null) return { outcome: await wrong(session, account, client) };
      const recoveryCodes = newRecoveryCodes();
      if (!(await enrolTotp(pool, account.id, secret, step, recoveryCodes.map(hashRecoveryCode)))) {
        return { outcome: 'restart' };
      }
      return {
        outcome: 'signed-in',
        sessionId: await complete(session, account, client),
        recoveryCodes,
      };
    },

    async signOut(session: Session): Promise<void> {
      await sessions.destroy(session);
    },
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
