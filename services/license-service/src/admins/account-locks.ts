/**
 * The failed-attempt counts and locks of an account, one pair per surface: the dashboard's
 * (`dashboard_failed_attempts`, `dashboard_locked_until`) and the license API's (`failed_attempts`,
 * `locked_until`); and the addresses that passed the API's check lately, which its lock spares.
 */
import { reachesOneRow, type Queryable } from '../store/sql';

export type LockSurface = 'dashboard' | 'api';

// Column names from this table only, never from a request.
const COLUMNS: Record<LockSurface, { failures: string; until: string }> = {
  dashboard: { failures: 'dashboard_failed_attempts', until: 'dashboard_locked_until' },
  api: { failures: 'failed_attempts', until: 'locked_until' },
};

/** Counts a wrong password; at `max` consecutive ones the surface is locked until `lockUntil`. */
export async function countPasswordFailure(
  db: Queryable,
  accountId: string,
  surface: LockSurface,
  max: number,
  lockUntil: Date,
): Promise<void> {
  const { failures, until } = COLUMNS[surface];
  await db.query(
    `update admin_users
     set ${failures} = ${failures} + 1,
         ${until} = case when ${failures} + 1 >= $2 then $3::timestamptz else ${until} end
     where id = $1`,
    [accountId, max, lockUntil],
  );
}

export async function clearPasswordFailures(
  db: Queryable,
  accountId: string,
  surface: LockSurface,
): Promise<void> {
  const { failures, until } = COLUMNS[surface];
  await db.query(`update admin_users set ${failures} = 0, ${until} = null where id = $1`, [
    accountId,
  ]);
}

/** An address that passed the license API's check for this account in the last `days`. */
export function isKnownApiAddress(
  db: Queryable,
  accountId: string,
  address: string,
  days: number,
): Promise<boolean> {
  return reachesOneRow(
    db,
    `select 1 from api_known_addresses
     where account_id = $1 and address = $2 and last_success_at > now() - make_interval(days => $3)`,
    [accountId, address, days],
  );
}

export async function rememberApiAddress(
  db: Queryable,
  accountId: string,
  address: string,
): Promise<void> {
  await db.query(
    `insert into api_known_addresses (account_id, address) values ($1, $2)
     on conflict (account_id, address) do update set last_success_at = now()`,
    [accountId, address],
  );
}
