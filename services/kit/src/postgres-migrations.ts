/**
 * PostgreSQL schema migrations: the plain `.sql` files of a service's `migrations/` in name order,
 * each once, recorded in `schema_migrations`. Start-up work runs in one transaction holding an
 * advisory lock, so replicas that start together take turns: the first applies, the others find
 * nothing left to do. The lock is transaction-scoped (`pg_advisory_xact_lock`), which works through
 * a pooler in transaction mode (PgBouncer): a session lock would be taken on one server connection
 * and its unlock sent on another.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { errorMessage } from './error-message';
import { inTransaction } from './postgres-transaction';

/**
 * Runs `work` in one transaction holding the service's start-up advisory lock (migrations, first
 * records): committed when it resolves, all of it rolled back when it throws. `work` must not
 * commit itself (that would end the lock too). `lockId` is an arbitrary constant naming that
 * service's lock among advisory locks.
 */
export function withStartupLock<T>(
  pool: Pool,
  lockId: number,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [lockId]);
    return work(client);
  });
}

/**
 * Applies pending migrations; returns the versions applied now. Call under `withStartupLock`: the
 * files run in its transaction, so a failing file leaves none of this start's files applied.
 */
export async function migrate(client: PoolClient, dir: string): Promise<string[]> {
  await client.query(
    `create table if not exists schema_migrations (
       version text primary key,
       applied_at timestamptz not null default now()
     )`,
  );
  const done = new Set(
    (await client.query<{ version: string }>('select version from schema_migrations')).rows.map(
      (row) => row.version,
    ),
  );
  const files = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const applied: string[] = [];
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    if (done.has(version)) continue;
    const sql = await readFile(join(dir, file), 'utf8');
    try {
      await client.query(sql);
    } catch (err) {
      throw new Error(`while applying migration ${file}: ${errorMessage(err)}`, { cause: err });
    }
    await client.query('insert into schema_migrations (version) values ($1)', [version]);
    applied.push(version);
  }
  return applied;
}
