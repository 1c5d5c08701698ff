// The pool metrics' registry side: what a scrape shows for the pools reported and the waits timed.
import { Registry } from 'prom-client';
import { poolMetrics, type PoolSnapshot } from '../../src/pool-metrics';

async function scrape(registry: Registry): Promise<string> {
  return registry.metrics();
}

describe('poolMetrics', () => {
  it('shows each reported pool by state, its bound and its waiting requests, read at scrape time', async () => {
    const registry = new Registry();
    const state: PoolSnapshot = { pool: 'main', idle: 2, used: 3, pending: 1, max: 10 };
    poolMetrics(registry).report(() => [state]);
    let text = await scrape(registry);
    expect(text).toContain('db_client_connection_count{pool="main",state="idle"} 2');
    expect(text).toContain('db_client_connection_count{pool="main",state="used"} 3');
    expect(text).toContain('db_client_connection_max{pool="main"} 10');
    expect(text).toContain('db_client_connection_pending_requests{pool="main"} 1');
    state.idle = 5;
    state.used = 0;
    state.pending = 0;
    text = await scrape(registry);
    expect(text).toContain('db_client_connection_count{pool="main",state="idle"} 5');
    expect(text).toContain('db_client_connection_count{pool="main",state="used"} 0');
    expect(text).toContain('db_client_connection_pending_requests{pool="main"} 0');
  });

  it('drops a pool no longer reported and leaves the bound out when a source has none', async () => {
    const registry = new Registry();
    let pools: PoolSnapshot[] = [
      { pool: 'postgresql', idle: 1, used: 0, pending: 0 },
      { pool: 'mysql', idle: 0, used: 1, pending: 2 },
    ];
    poolMetrics(registry).report(() => pools);
    let text = await scrape(registry);
    expect(text).toContain('db_client_connection_pending_requests{pool="mysql"} 2');
    expect(text).not.toMatch(/db_client_connection_max\{/);
    pools = [{ pool: 'postgresql', idle: 1, used: 0, pending: 0 }];
    text = await scrape(registry);
    expect(text).not.toContain('pool="mysql"');
    expect(text).toContain('db_client_connection_count{pool="postgresql",state="idle"} 1');
  });

  it('is one set per registry, however often it is asked for', async () => {
    const registry = new Registry();
    const metrics = poolMetrics(registry);
    expect(poolMetrics(registry)).toBe(metrics);
    metrics.report(() => [{ pool: 'a', idle: 1, used: 0, pending: 0 }]);
    poolMetrics(registry).report(() => [{ pool: 'b', idle: 0, used: 4, pending: 0 }]);
    const text = await scrape(registry);
    expect(text).toContain('db_client_connection_count{pool="a",state="idle"} 1');
    expect(text).toContain('db_client_connection_count{pool="b",state="used"} 4');
    // Another registry has its own set (a second service in the same process).
    expect(poolMetrics(new Registry())).not.toBe(metrics);
  });

  it('times the waits that got a connection and counts those given up, from zero', async () => {
    const registry = new Registry();
    const metrics = poolMetrics(registry);
    const first = metrics.waitStarted('main');
    let text = await scrape(registry);
    expect(text).toContain('db_client_connection_timeouts_total{pool="main"} 0');
    expect(text).toContain('db_client_connection_wait_time_seconds_count{pool="main"} 0');
    await new Promise((resolve) => setTimeout(resolve, 20));
    first('acquired');
    metrics.waitStarted('main')('timeout');
    metrics.waitStarted('main')('error');
    text = await scrape(registry);
    expect(text).toContain('db_client_connection_wait_time_seconds_count{pool="main"} 1');
    expect(text).toContain(
      'db_client_connection_wait_time_seconds_bucket{le="0.01",pool="main"} 0',
    );
    expect(text).toContain('db_client_connection_wait_time_seconds_bucket{le="10",pool="main"} 1');
    const sum = Number(
      /db_client_connection_wait_time_seconds_sum\{pool="main"\} (\S+)/.exec(text)![1],
    );
    expect(sum).toBeGreaterThanOrEqual(0.015);
    expect(text).toContain('db_client_connection_timeouts_total{pool="main"} 1');
  });
});
