// The kit's PostgreSQL pool and start-up lock against the servers of `make testenv`: an idle pool
// closes every connection, and the start-up lock holds through PgBouncer in transaction mode.
import { randomBytes } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { Registry } from 'prom-client';
import { createLogger, createPostgresPool, withStartupLock } from '../../src';

const { POSTGRES_URL, PGBOUNCER_URL } = requireEnv('POSTGRES_URL', 'PGBOUNCER_URL');
const logger = createLogger({ name: 'postgres-pool-test', level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pool from the settings, its connections named `name` in pg_stat_activity. */
function poolOf(url: string, name: string, settings: { max?: number; idleMs?: number } = {}) {
  const withName = new URL(url);
  withName.searchParams.set('application_name', name);
  return createPostgresPool(
    pg.Pool,
    {
      DATABASE_URL: withName.toString(),
      DATABASE_POOL_MAX: settings.max ?? 10,
      DATABASE_POOL_IDLE_MS: settings.idleMs ?? 10_000,
    },
    { logger, registry: new Registry() },
  );
}

describe('createPostgresPool', () => {
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  afterAll(() => admin.end());
  const connectionsNamed = async (name: string) =>
    Number(
      (
        await admin.query<{ n: string }>(
          'select count(*) as n from pg_stat_activity where application_name = $1',
          [name],
        )
      ).rows[0]!.n,
    );

  it('closes every connection once they have been idle for DATABASE_POOL_IDLE_MS', async () => {
    const name = `kit-idle-${randomBytes(4).toString('hex')}`;
    const pool = poolOf(POSTGRES_URL, name, { max: 4, idleMs: 300 });
    try {
      await Promise.all([1, 2, 3, 4].map(() => pool.query('select pg_sleep(0.05)')));
      expect(await connectionsNamed(name)).toBe(4);
      await sleep(1000);
      expect(pool.totalCount).toBe(0);
      expect(await connectionsNamed(name)).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('opens no more connections than DATABASE_POOL_MAX', async () => {
    const name = `kit-max-${randomBytes(4).toString('hex')}`;
    const pool = poolOf(POSTGRES_URL, name, { max: 2 });
    try {
      const counts = await Promise.all(
        [1, 2, 3, 4, 5].map(async () => {
          await pool.query('select pg_sleep(0.05)');
          return connectionsNamed(name);
        }),
      );
      expect(Math.max(...counts)).toBeLessThanOrEqual(2);
    } finally {
      await pool.end();
    }
  });
});

describe('withStartupLock through PgBouncer in transaction mode', () => {
  const LOCK = 0x7e57_0001;
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  const pools = [1, 2, 3].map((i) => poolOf(PGBOUNCER_URL, `kit-lock-${i}`));
  afterAll(() => Promise.all([admin, ...pools].map((pool) => pool.end())));
  const advisoryLocksHeld = async () =>
    Number(
      (
        await admin.query<{ n: string }>(
          `select count(*) as n from pg_locks where locktype = 'advisory' and objid = $1`,
          [LOCK],
        )
      ).rows[0]!.n,
    );

  it('lets starters take turns, and nothing stays locked after them', async () => {
    const events: string[] = [];
    await Promise.all(
      pools.map((pool, i) =>
        withStartupLock(pool, LOCK, async (client) => {
          events.push(`in ${i}`);
          // Statements of the work, each of which a pooler may send to any server connection.
          for (let step = 0; step < 3; step++) await client.query('select pg_sleep(0.02)');
          events.push(`out ${i}`);
        }),
      ),
    );
    // Never two inside at once: each "in" is followed by its own "out".
    for (let at = 0; at < events.length; at += 2) {
      expect(events[at + 1]).toBe(events[at]!.replace('in', 'out'));
    }
    expect(await advisoryLocksHeld()).toBe(0);
  });

  it('rolls back the work that throws and releases the lock', async () => {
    const table = `kit_lock_${randomBytes(4).toString('hex')}`;
    await expect(
      withStartupLock(pools[0]!, LOCK, async (client) => {
        await client.query(`create table ${table} (id int)`);
        throw new Error('migration failed');
      }),
    ).rejects.toThrow('migration failed');
    const { rows } = await admin.query('select to_regclass($1) as found', [table]);
    expect(rows[0]).toEqual({ found: null });
    expect(await advisoryLocksHeld()).toBe(0);
    // The next starter gets the lock at once.
    await expect(withStartupLock(pools[1]!, LOCK, () => Promise.resolve('next'))).resolves.toBe(
      'next',
    );
  });
});
