// observePgPool on a real node-postgres pool against the PostgreSQL of `make testenv`: the counts
// a scrape shows while connections are lent out and requests wait, the waits timed, and a wait
// given up after connectionTimeoutMillis counted.
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { Registry } from 'prom-client';
import { observePgPool } from '../../src';

const { POSTGRES_URL } = requireEnv('POSTGRES_URL');

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no series ${series} in\n${text}`);
  return Number(line.slice(series.length + 1));
}

describe('observePgPool', () => {
  const pools: pg.Pool[] = [];
  afterAll(() => Promise.all(pools.map((pool) => pool.end())));

  function observed(options: pg.PoolConfig, name?: string) {
    const registry = new Registry();
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, ...options });
    pools.push(pool);
    observePgPool(registry, pool, name);
    return { pool, scrape: () => registry.metrics() };
  }

  it('shows connections idle, used and waited for, and times every connect and query', async () => {
    const { pool, scrape } = observed({ max: 2 });
    let text = await scrape();
    expect(value(text, 'db_client_connection_max{pool="main"}')).toBe(2);
    expect(value(text, 'db_client_connection_count{pool="main",state="used"}')).toBe(0);
    expect(value(text, 'db_client_connection_wait_time_seconds_count{pool="main"}')).toBe(0);
    expect(value(text, 'db_client_connection_timeouts_total{pool="main"}')).toBe(0);

    const a = await pool.connect();
    const b = await pool.connect();
    // Both connections lent out: a query and a callback-style connect wait for one.
    const query = pool.query('select 1 as one');
    const viaCallback = new Promise<pg.PoolClient>((resolve, reject) => {
      pool.connect((err, client) => (err ? reject(err) : resolve(client!)));
    });
    text = await scrape();
    expect(value(text, 'db_client_connection_count{pool="main",state="used"}')).toBe(2);
    expect(value(text, 'db_client_connection_count{pool="main",state="idle"}')).toBe(0);
    expect(value(text, 'db_client_connection_pending_requests{pool="main"}')).toBe(2);

    await new Promise((resolve) => setTimeout(resolve, 50));
    a.release();
    b.release();
    expect((await query).rows).toEqual([{ one: 1 }]);
    (await viaCallback).release();

    text = await scrape();
    expect(value(text, 'db_client_connection_pending_requests{pool="main"}')).toBe(0);
    expect(value(text, 'db_client_connection_count{pool="main",state="idle"}')).toBe(2);
    expect(value(text, 'db_client_connection_count{pool="main",state="used"}')).toBe(0);
    expect(value(text, 'db_client_connection_wait_time_seconds_count{pool="main"}')).toBe(4);
    // The two waiters waited at least the 50 ms both connections were held.
    expect(
      value(text, 'db_client_connection_wait_time_seconds_bucket{le="0.025",pool="main"}'),
    ).toBeLessThanOrEqual(2);
    expect(
      value(text, 'db_client_connection_wait_time_seconds_sum{pool="main"}'),
    ).toBeGreaterThanOrEqual(0.09);
  });

  it('counts a wait given up after connectionTimeoutMillis, and keeps its time out of the histogram', async () => {
    // The one connection opens without the short limit (opening one can take over 100 ms on a
    // loaded machine, and pg-pool applies the limit to that too); the waits after it get 100 ms.
    const { pool, scrape } = observed({ max: 1 }, 'sessions');
    const held = await pool.connect();
    pool.options.connectionTimeoutMillis = 100;
    await expect(pool.query('select 1')).rejects.toThrow('timeout exceeded when trying to connect');
    await expect(pool.connect()).rejects.toThrow('timeout exceeded when trying to connect');
    held.release();
    await pool.query('select 1');
    const text = await scrape();
    expect(value(text, 'db_client_connection_timeouts_total{pool="sessions"}')).toBe(2);
    expect(value(text, 'db_client_connection_wait_time_seconds_count{pool="sessions"}')).toBe(2);
    expect(value(text, 'db_client_connection_max{pool="sessions"}')).toBe(1);
  });

  it('counts a failed connect as neither a wait nor a time-out', async () => {
    const url = new URL(POSTGRES_URL);
    url.pathname = '/no_such_database_for_pool_metrics';
    const { pool, scrape } = observed({ connectionString: url.toString() });
    await expect(pool.query('select 1')).rejects.toThrow();
    const text = await scrape();
    expect(value(text, 'db_client_connection_wait_time_seconds_count{pool="main"}')).toBe(0);
    expect(value(text, 'db_client_connection_timeouts_total{pool="main"}')).toBe(0);
  });
});
