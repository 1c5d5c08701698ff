/**
 * Dashboard accounts and roles: the tables, their forms, and the first account made from the
 * settings. An account's password hash, TOTP secret and recovery codes never leave this service's
 * database: pages and the activity log see an account without them.
 */
import type { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { field } from '../records/form-input';
import type { Queryable } from '../store/sql';
import { createTableRepository, isUuid } from '../store/table-repository';
import type { PasswordHasher } from '@pelita/kit';
import { BUILTIN_ROLES, isPermission, type Permission } from './permissions';

export const adminTable = createTableRepository({
  table: 'admin_users',
  columns: [
    'name',
    'email',
    'password_hash',
    'role_id',
    'is_active',
    'totp_secret',
    'totp_last_step',
    'recovery_code_hashes',
    'api_client_ids',
  ],
  searchable: ['name', 'email'],
  sortable: ['name', 'email', 'is_active', 'last_login_at', 'created_at'],
});

export const roleTable = createTableRepository({
  table: 'roles',
  columns: ['name', 'permissions'],
  searchable: ['name'],
  sortable: ['name', 'created_at'],
});

export interface Account {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  role_id: string;
  role_name: string;
  permissions: Permission[];
  is_active: boolean;
  totp_secret: string | null;
  totp_last_step: string | null;
  recovery_code_hashes: string[];
  /** The license API's failed-attempt count and lock. */
  failed_attempts: number;
  locked_until: Date | null;
  /** The dashboard's, counted apart (wrong passwords and second-factor locks). */
  dashboard_failed_attempts: number;
  dashboard_locked_until: Date | null;
  /** Wrong second-factor codes since the last completed sign-in. */
  second_factor_failures: number;
  /** The clients this account reads through the license API (see `mayReadClient`). */
  api_client_ids: string[];
}

const ACCOUNT_SELECT = `
  select a.*, r.name as role_name, r.permissions
  from admin_users a join roles r on r.id = a.role_id`;

export async function accountByEmail(db: Queryable, email: string): Promise<Account | null> {
  const { rows } = await db.query<Account>(`${ACCOUNT_SELECT} where lower(a.email) = lower($1)`, [
    email,
  ]);
  return rows[0] ?? null;
}

export async function accountById(db: Queryable, id: string): Promise<Account | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<Account>(`${ACCOUNT_SELECT} where a.id = $1`, [id]);
  return rows[0] ?? null;
}

/**
 * Replaces an account's password hash with one of the same password at today's cost, unless the
 * password changed meanwhile (then the new password's hash stays). True when it was replaced.
 */
export async function replacePasswordHash(
  db: Queryable,
  id: string,
  previous: string,
  fresh: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'update admin_users set password_hash = $3 where id = $1 and password_hash = $2',
    [id, previous, fresh],
  );
  return rowCount === 1;
}

/** An account as pages and the activity log see it (its API clients one per line). */
export function publicAccount(row: Record<string, unknown>): Record<string, unknown> {
  const {
    password_hash: _hash,
    totp_secret: _totp,
    totp_last_step: _step,
    recovery_code_hashes: _codes,
    failed_attempts: _failed,
    second_factor_failures: _secondFactorFailures,
    dashboard_failed_attempts: _dashboardFailed,
    ...shown
  } = row;
  const clients = shown.api_client_ids;
  return Array.isArray(clients) ? { ...shown, api_client_ids: clients.join('\n') } : shown;
}

const PASSWORD_MIN = 12;

export const accountForm = (creating: boolean) =>
  z.object({
    name: field.required(),
    email: field.requiredEmail(),
    role_id: field.required(100).pipe(z.string().refine(isUuid, 'Choose a role')),
    password: creating
      ? field
          .required(200)
          .pipe(z.string().min(PASSWORD_MIN, `At least ${PASSWORD_MIN} characters`))
      : field
          .optional(200)
          .pipe(
            z
              .string()
              .refine(
                (v) => v === '' || v.length >= PASSWORD_MIN,
                `At least ${PASSWORD_MIN} characters`,
              ),
          ),
    is_active: field.checkbox(),
    /** Client ids, one per line (commas and spaces also separate them). */
    api_client_ids: field
      .optional(40_000)
      .transform((text) => [
        ...new Set(
          text
            .toLowerCase()
            .split(/[\s,]+/)
            .filter(Boolean),
        ),
      ])
      .pipe(
        z
          .array(z.string().refine(isUuid, 'Client IDs only, one per line'))
          .max(1000, 'At most 1000 clients'),
      ),
    /** Edit only: forget the TOTP secret and recovery codes; the account enrols again. */
    reset_totp: field.checkbox(),
  });

export const roleForm = z.object({
  name: field
    .required(100)
    .pipe(z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, 'Lower-case letters, digits, ., _ and -')),
  permissions: field.list().pipe(z.array(z.string().refine(isPermission, 'Unknown permission'))),
});

/**
 * Form values → columns: a new password hashed (empty: kept), and on edit `reset_totp` forgets the
 * TOTP secret and recovery codes so the account enrols again.
 */
export async function accountRecord(
  values: Record<string, unknown>,
  creating: boolean,
  hasher: Pick<PasswordHasher, 'hash'>,
): Promise<Record<string, unknown>> {
  const { password, reset_totp, ...record } = values;
  if (typeof password === 'string' && password) record.password_hash = await hasher.hash(password);
  if (!creating && reset_totp) {
    record.totp_secret = null;
    record.totp_last_step = null;
    record.recovery_code_hashes = [];
  }
  return record;
}

/** A role some account still has cannot be deleted. */
export async function roleInUse(db: Queryable, roleId: string): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from admin_users where role_id = $1 limit 1', [
    roleId,
  ]);
  return rowCount === 1;
}

export async function listRoles(
  db: Queryable,
): Promise<Array<{ id: string; name: string; permissions: string[] }>> {
  const { rows } = await db.query<{ id: string; name: string; permissions: string[] }>(
    'select id, name, permissions from roles order by name',
  );
  return rows;
}

/**
 * At start (under the start-up lock): the built-in roles when there are none, and the first
 * account from ADMIN_EMAIL / ADMIN_PASSWORD when there is no account yet.
 */
export async function ensureFirstRecords(
  pool: Queryable | Pool,
  admin: { email: string; password: string; name?: string | undefined } | undefined,
  hasher: Pick<PasswordHasher, 'hash'>,
): Promise<void> {
  const roles = await pool.query<{ n: number }>('select count(*)::int as n from roles');
  if (roles.rows[0]!.n === 0) {
    for (const role of BUILTIN_ROLES) {
      await pool.query('insert into roles (id, name, permissions) values ($1, $2, $3)', [
        randomUUID(),
        role.name,
        role.permissions,
      ]);
    }
  }
  if (!admin) return;
  const accounts = await pool.query<{ n: number }>('select count(*)::int as n from admin_users');
  if (accounts.rows[0]!.n > 0) return;
  await pool.query(
    `insert into admin_users (id, name, email, password_hash, role_id)
     values ($1, $2, $3, $4, (select id from roles where name = 'super-admin'))`,
    [randomUUID(), admin.name ?? 'Administrator', admin.email, await hasher.hash(admin.password)],
  );
}
