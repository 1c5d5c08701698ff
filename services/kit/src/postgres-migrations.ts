/**
 * PostgreSQL schema migrations: the plain `.sql` files of a service's `migrations/` in name order,
 * each once, each in its own transaction, recorded in `schema_migrations`. An advisory lock makes
 * replicas that start together take turns: the first applies, the others find nothing left to do.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { errorMessage } from './error-message';

/**
 * Runs `work` while holding the service's start-up advisory lock (migrations, first records).
 * `lockId` is an arbitrary constant naming that service's lock among advisory locks.
 */
export async function withStartupLock<T>(
  pool: Pool,
  lockId: number,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [lockId]);
    try {
      return await work(client);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [lockId]);
    }
  } finally {
    client.release();
  }
}

/** Applies pending migrations; returns the versions applied now. Call under `withStartupLock`. */
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
    await client.query('begin');
    try {
      await client.query(sql);
      await client.query('insert into schema_migrations (version) values ($1)', [version]);
      await client.query('commit');
    } catch (err) {
      await client.query('rollback');
      throw new Error(`while applying migration ${file}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    applied.push(version);
  }
  return applied;
}
