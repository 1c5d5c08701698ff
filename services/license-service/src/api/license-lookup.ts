/**
 * The license API's answer (seed 001 D): a client with its licenses, plus — beyond the seed,
 * after Keygen's validation API — a `validation` a caller can act on: `valid` and one `code`.
 * The order of the checks decides which code a client with several problems gets: the client
 * itself first, then its licenses, then its seats.
 */
import type { Account } from '../admins/accounts';
import { mayReadClient } from '../admins/permissions';
import type { Queryable } from '../store/sql';
import { isUuid } from '../store/table-repository';

export const VALIDATION_CODES = [
  'VALID',
  'NOT_FOUND',
  'SUSPENDED',
  'EXPIRED',
  'TOO_MANY_USERS',
  'CLIENT_INACTIVE',
] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

export interface LicenseSummary {
  id: string;
  license_name: string;
  status: boolean;
  expired_date: string | null;
  activated_date: string | null;
  serial_number: string;
  qty: number;
  module: string;
}

export interface ClientAnswer {
  id: string;
  name: string;
  company_name: string;
  email: string;
  phone: string;
  address: string;
  is_active: boolean;
  max_user: number | null;
  licenses: LicenseSummary[];
  validation: { valid: boolean; code: ValidationCode; detail: string };
}

/**
 * `users`: the seats the caller will have in use (its active users, counting one it is about to
 * add); beyond `max_user` the answer is TOO_MANY_USERS.
 */
export function validate(
  client: Pick<ClientAnswer, 'is_active' | 'max_user'>,
  licenses: Array<Pick<LicenseSummary, 'status' | 'expired_date'>>,
  now: Date,
  users?: number,
): ClientAnswer['validation'] {
  const answer = (code: ValidationCode, detail: string) => ({
    valid: code === 'VALID',
    code,
    detail,
  });
  if (!client.is_active) return answer('CLIENT_INACTIVE', 'The client is inactive');
  if (licenses.length === 0) return answer('NOT_FOUND', 'The client holds no license');
  const unexpired = (l: { expired_date: string | null }) =>
    l.expired_date === null || new Date(l.expired_date).getTime() > now.getTime();
  if (!licenses.some((l) => l.status && unexpired(l))) {
    return licenses.some((l) => l.status)
      ? answer('EXPIRED', 'Every active license has expired')
      : answer('SUSPENDED', 'Every license is suspended');
  }
  if (users !== undefined && client.max_user !== null && users > client.max_user) {
    return answer('TOO_MANY_USERS', `The client may have at most ${client.max_user} users`);
  }
  return answer('VALID', 'The client holds a valid license');
}

/**
 * What `account` may learn of client `id`: nothing at all without `api.licenses` (forbidden), and
 * a client it is not bound to is answered as an unknown one (null), so an account learns neither
 * another tenant's records nor whether a client id exists.
 */
export async function licenseFor(
  db: Queryable,
  account: Account,
  id: string,
  now: Date,
  users?: number,
): Promise<{ allowed: false } | { allowed: true; client: ClientAnswer | null }> {
  if (!account.permissions.includes('api.licenses')) return { allowed: false };
  if (!isUuid(id) || !mayReadClient(account, id)) return { allowed: true, client: null };
  return { allowed: true, client: await lookupClient(db, id, now, users) };
}

async function lookupClient(
  db: Queryable,
  id: string,
  now: Date,
  users?: number,
): Promise<ClientAnswer | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<Omit<ClientAnswer, 'licenses' | 'validation'>>(
    `select id, name, company_name, email, phone, address, is_active, max_user
     from clients where id = $1`,
    [id],
  );
  const client = rows[0];
  if (!client) return null;
  const licenses = await db.query<LicenseSummary>(
    `select id, license_name, status, serial_number, qty, module,
            to_char(expired_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as expired_date,
            to_char(activated_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as activated_date
     from licenses where client_id = $1 order by activated_date desc nulls last, license_name`,
    [id],
  );
  return {
    ...client,
    licenses: licenses.rows,
    validation: validate(client, licenses.rows, now, users),
  };
}
