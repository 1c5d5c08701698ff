/**
 * The credential columns of an account: password hash, TOTP secret and last step, recovery codes,
 * the second-factor failure count, the last sign-in. Each write that a concurrent request could
 * race is conditional, so one code or one recovery code passes once.
 */
import { reachesOneRow, type Queryable } from '../store/sql';

/** Stores `step` as the last accepted one; false when it is not newer (the code was used). */
export function takeTotpStep(db: Queryable, accountId: string, step: number): Promise<boolean> {
  return reachesOneRow(
    db,
    `update admin_users set totp_last_step = $2
     where id = $1 and (totp_last_step is null or totp_last_step < $2)`,
    [accountId, step],
  );
}

/** Replaces the recovery codes only if they are still `expected`: a code is consumed once. */
export function replaceRecoveryCodes(
  db: Queryable,
  accountId: string,
  expected: string[],
  remaining: string[],
): Promise<boolean> {
  return reachesOneRow(
    db,
    'update admin_users set recovery_code_hashes = $2 where id = $1 and recovery_code_hashes = $3',
    [accountId, remaining, expected],
  );
}

/** The first TOTP secret of an account; false when it enrolled meanwhile. */
export function enrolTotp(
  db: Queryable,
  accountId: string,
  secret: string,
  step: number,
  recoveryHashes: string[],
): Promise<boolean> {
  return reachesOneRow(
    db,
    `update admin_users set totp_secret = $2, totp_last_step = $3, recovery_code_hashes = $4
     where id = $1 and totp_secret is null`,
    [accountId, secret, step, recoveryHashes],
  );
}

/** New recovery codes, with the step of the code that allowed it (taken once, as at sign-in). */
export function renewRecoveryCodes(
  db: Queryable,
  accountId: string,
  step: number,
  recoveryHashes: string[],
): Promise<boolean> {
  return reachesOneRow(
    db,
    `update admin_users set totp_last_step = $2, recovery_code_hashes = $3
     where id = $1 and (totp_last_step is null or totp_last_step < $2)`,
    [accountId, step, recoveryHashes],
  );
}

export async function setPasswordHash(
  db: Queryable,
  accountId: string,
  hash: string,
): Promise<void> {
  await db.query('update admin_users set password_hash = $2, updated_at = now() where id = $1', [
    accountId,
    hash,
  ]);
}

/**
 * Counts a wrong second-factor code; at `max` the dashboard sign-in is locked until `lockUntil`.
 * Returns the failures since the last completed sign-in.
 */
export async function countSecondFactorFailure(
  db: Queryable,
  accountId: string,
  max: number,
  lockUntil: Date,
): Promise<number> {
  const { rows } = await db.query<{ failures: number }>(
    `update admin_users
     set second_factor_failures = second_factor_failures + 1,
         dashboard_locked_until = case when second_factor_failures + 1 >= $2
                                       then $3::timestamptz else dashboard_locked_until end
     where id = $1 returning second_factor_failures as failures`,
    [accountId, max, lockUntil],
  );
  return rows[0]?.failures ?? Number.POSITIVE_INFINITY;
}

/** A completed sign-in (password and second factor): the only thing that clears the count. */
export async function recordSignIn(db: Queryable, accountId: string): Promise<void> {
  await db.query(
    'update admin_users set last_login_at = now(), second_factor_failures = 0 where id = $1',
    [accountId],
  );
}
