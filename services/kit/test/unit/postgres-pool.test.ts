// The pool factory's settings and what it builds (no connection is opened here).
import pg from 'pg';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createPostgresPool, postgresPoolSettings } from '../../src/postgres-pool';

const schema = z.object({ DATABASE_URL: z.string(), ...postgresPoolSettings });
const logger = createLogger({ name: 'postgres-pool-test', level: 'silent' });
const URL = 'postgres://nobody@127.0.0.1:1/none';

describe('postgresPoolSettings', () => {
  it('defaults to 10 connections closed after 10 s idle', () => {
    expect(loadConfig(schema, { DATABASE_URL: URL })).toEqual({
      DATABASE_URL: URL,
      DATABASE_POOL_MAX: 10,
      DATABASE_POOL_IDLE_MS: 10_000,
    });
  });

  it('refuses a zero idle time-out (node-postgres would never close a connection)', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: URL, DATABASE_POOL_IDLE_MS: '0' })).toThrow(
      /DATABASE_POOL_IDLE_MS/,
    );
    expect(() => loadConfig(schema, { DATABASE_URL: URL, DATABASE_POOL_MAX: '0' })).toThrow(
      /DATABASE_POOL_MAX/,
    );
  });
});

describe('createPostgresPool', () => {
  const pools: pg.Pool[] = [];
  afterAll(() => Promise.all(pools.map((pool) => pool.end())));

  it('sizes the pool from the settings, keeps no minimum, and keeps extra options', async () => {
    const registry = new Registry();
    const settings = { DATABASE_URL: URL, DATABASE_POOL_MAX: 3, DATABASE_POOL_IDLE_MS: 1500 };
    const pool = createPostgresPool(pg.Pool, settings, {
      logger,
      registry,
      name: 'core',
      config: { options: '-c search_path=elsewhere', max: 99 },
    });
    pools.push(pool);
    expect(pool.options).toMatchObject({
      connectionString: URL,
      max: 3,
      min: 0,
      idleTimeoutMillis: 1500,
      connectionTimeoutMillis: 5000,
      options: '-c search_path=elsewhere',
    });
    // Idle errors are logged rather than ending the process, and the metrics are reported.
    expect(pool.listenerCount('error')).toBe(1);
    expect(await registry.metrics()).toContain('db_client_connection_max{pool="core"} 3');
  });
});
