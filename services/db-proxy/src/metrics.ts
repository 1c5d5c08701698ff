/** The service's own metrics, registered beside the kit's on the same registry. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PoolStats } from './connection/target-pool';

export interface DbProxyMetrics {
  /** Statements run by /execute, by engine (x-db-mode) and outcome (`ok` or the error code). */
  statements: Counter<'engine' | 'outcome'>;
}

export function registerMetrics(
  registry: Registry,
  pools: { stats(): PoolStats[]; readonly targets: number },
): DbProxyMetrics {
  const statements = new Counter({
    name: 'db_proxy_statements_total',
    help: 'Statements run by /execute, by engine and outcome (ok or the error code)',
    labelNames: ['engine', 'outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'db_proxy_pool_connections',
    help: 'Pooled database connections, by engine and state (idle, busy), and requests waiting',
    labelNames: ['engine', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { label, idle, busy, waiting } of pools.stats()) {
        this.inc({ engine: label, state: 'idle' }, idle);
        this.inc({ engine: label, state: 'busy' }, busy);
        this.inc({ engine: label, state: 'waiting' }, waiting);
      }
    },
  });
  new Gauge({
    name: 'db_proxy_pool_targets',
    help: 'Distinct connection targets (parameter sets) with a pool',
    registers: [registry],
    collect() {
      this.set(pools.targets);
    },
  });
  return { statements };
}
