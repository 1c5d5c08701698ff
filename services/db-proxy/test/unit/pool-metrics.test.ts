// db-proxy's pools in the kit's pool metrics: one `pool` per engine, the targets of an engine
// added together, every engine listed at 0 before its first request.
import { Registry } from 'prom-client';
import type { PoolStats } from '../../src/connection/target-pool';
import { registerMetrics } from '../../src/metrics';

function registryWith(stats: PoolStats[]) {
  const registry = new Registry();
  registerMetrics(registry, { stats: () => stats, targets: stats.length });
  return registry;
}

it('lists every engine at 0 while no pool exists', async () => {
  const text = await registryWith([]).metrics();
  for (const engine of ['postgresql', 'mariadb', 'mysql']) {
    expect(text).toContain(`db_client_connection_count{pool="${engine}",state="idle"} 0`);
    expect(text).toContain(`db_client_connection_count{pool="${engine}",state="used"} 0`);
    expect(text).toContain(`db_client_connection_pending_requests{pool="${engine}"} 0`);
  }
  expect(text).toContain('db_proxy_pool_targets 0');
  // Each target has its own bound: there is no one maximum to report.
  expect(text).not.toMatch(/db_client_connection_max\{/);
});

it('adds up the pools of the targets of one engine', async () => {
  const text = await registryWith([
    { label: 'postgresql', idle: 1, busy: 2, waiting: 0 },
    { label: 'postgresql', idle: 0, busy: 4, waiting: 3 },
    { label: 'mysql', idle: 2, busy: 0, waiting: 0 },
  ]).metrics();
  expect(text).toContain('db_client_connection_count{pool="postgresql",state="idle"} 1');
  expect(text).toContain('db_client_connection_count{pool="postgresql",state="used"} 6');
  expect(text).toContain('db_client_connection_pending_requests{pool="postgresql"} 3');
  expect(text).toContain('db_client_connection_count{pool="mysql",state="idle"} 2');
  expect(text).toContain('db_client_connection_count{pool="mariadb",state="used"} 0');
  expect(text).toContain('db_proxy_pool_targets 3');
});
