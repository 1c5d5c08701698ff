/**
 * The core backend's PostgreSQL pool. Its tables live in their own schema (DATABASE_SCHEMA), so
 * one database can hold the user service's and the core backend's tables and migration records
 * side by side; `start` creates the schema before migrating.
 */
import {
  conflict,
  createPostgresPool,
  migrate,
  withStartupLock,
  type PostgresPoolOptions,
  type PostgresPoolSettings,
} from '@pelita/kit';
import { join } from 'node:path';
import pg from 'pg';

// Same directory from src/ (tests) and dist/ (built): both sit beside migrations/.
const MIGRATIONS_DIR = join(__dirname, '..', '..', 'migrations');
/** Names the core backend's start-up lock among advisory locks. */
const STARTUP_LOCK = 7_301_005;

/**
 * The schema comes with every connection (the startup `options`). PgBouncer in transaction mode
 * refuses that parameter, or with `ignore_startup_parameters = options` drops it: there the
 * search path has to come from the pooler's database entry (`connect_query`), which
 * `migrateDatabase` checks.
 */
export function createPool(
  settings: PostgresPoolSettings & { DATABASE_SCHEMA: string },
  options: Omit<PostgresPoolOptions, 'config'>,
): pg.Pool {
  return createPostgresPool(pg.Pool, settings, {
    ...options,
    config: { options: `-c search_path=${settings.DATABASE_SCHEMA}` },
  });
}

/**
 * Creates the schema and applies pending migrations under the start-up lock; returns them.
 * Refuses to start when the connections do not use the schema: the tables would go elsewhere.
 */
export function migrateDatabase(pool: pg.Pool, schema: string): Promise<string[]> {
  return withStartupLock(pool, STARTUP_LOCK, async (client) => {
    await client.query(`create schema if not exists ${schema}`);
    const { rows } = await client.query<{ schema: string | null; path: string }>(
      `select current_schema() as schema, current_setting('search_path') as path`,
    );
    if (rows[0]?.schema !== schema) {
      throw new Error(
        `the database connections do not use schema ${schema} (search_path is ${rows[0]?.path}): ` +
          'through a pooler that drops the startup options, set search_path in its database entry',
      );
    }
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
