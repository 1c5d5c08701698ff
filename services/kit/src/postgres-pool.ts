/**
 * Every service's PostgreSQL pool, sized by the DATABASE_POOL_* settings. An idle pool closes all
 * its connections (no minimum): with hundreds of installations on one PostgreSQL, connections
 * kept open by quiet tenants are what exhausts `max_connections`.
 */
import type { Pool, PoolConfig } from 'pg';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { positiveInt } from './config';
import { observePgPool } from './pool-metrics';
import { loggingIdleErrors } from './postgres-transaction';

/** The settings, to spread into a service's schema beside DATABASE_URL. */
export const postgresPoolSettings = {
  /** The most connections one process opens (node-postgres' own default). */
  DATABASE_POOL_MAX: positiveInt(10),
  /** A connection unused this long is closed; 0 is refused (node-postgres would keep it for ever). */
  DATABASE_POOL_IDLE_MS: positiveInt(10_000),
};

export interface PostgresPoolSettings {
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  DATABASE_POOL_IDLE_MS: number;
}

export interface PostgresPoolOptions {
  logger: Logger;
  registry: Registry;
  /** The `pool` label of its metrics. */
  name?: string;
  /** More node-postgres settings (a schema's `options`); the sizes stay the settings'. */
  config?: PoolConfig;
}

/**
 * A node-postgres pool from the settings, its idle errors logged and its metrics reported. `Pool`
 * is the service's `pg.Pool`: the kit does not load pg itself.
 */
export function createPostgresPool<P extends Pool>(
  Pool: new (config: PoolConfig) => P,
  settings: PostgresPoolSettings,
  { logger, registry, name, config }: PostgresPoolOptions,
): P {
  const pool = new Pool({
    connectionString: settings.DATABASE_URL,
    // A bounded wait: without it a request waits for ever while the database is unreachable.
    connectionTimeoutMillis: 5000,
    ...config,
    max: settings.DATABASE_POOL_MAX,
    min: 0,
    idleTimeoutMillis: settings.DATABASE_POOL_IDLE_MS,
  });
  loggingIdleErrors(pool, logger);
  observePgPool(registry, pool, name);
  return pool;
}
