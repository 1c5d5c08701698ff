/**
 * The core backend's PostgreSQL pool. Its tables live in their own schema (DATABASE_SCHEMA), so
 * one database can hold the user service's and the core backend's tables and migration records
 * side by side; `start` creates the schema before migrating.
 */
import { conflict, migrate, withStartupLock } from '@pelita/kit';
import { join } from 'node:path';
import pg from 'pg';

// Same directory from src/ (tests) and dist/ (built): both sit beside migrations/.
const MIGRATIONS_DIR = join(__dirname, '..', '..', 'migrations');
/** Names the core backend's start-up lock among advisory locks. */
const STARTUP_LOCK = 7_301_005;

export function createPool(url: string, schema: string): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    options: `-c search_path=${schema}`,
  });
}

/** Creates the schema and applies pending migrations under the start-up lock; returns them. */
export function migrateDatabase(pool: pg.Pool, schema: string): Promise<string[]> {
  return withStartupLock(pool, STARTUP_LOCK, async (client) => {
    await client.query(`create schema if not exists ${schema}`);
    return migrate(client, MIGRATIONS_DIR);
  });
}

/** Whether an error is PostgreSQL's unique violation (23505). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

/** A unique violation (a name taken) as 409 with `message`; anything else thrown as it came. */
export const conflictOnUnique =
  (message: string) =>
  (err: unknown): never => {
    throw isUniqueViolation(err) ? conflict(message) : err;
  };
