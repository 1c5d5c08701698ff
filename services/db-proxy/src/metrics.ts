/** The service's own metrics, registered beside the kit's on the same registry. */
import { poolMetrics, type PoolSnapshot } from '@pelita/kit';
import { Counter, Gauge, type Registry } from 'prom-client';
import { MODES } from './connection/params';
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
  // The kit's pool metrics (db_client_connection_*), one pool label per engine (x-db-mode): the
  // connections of all targets of that engine together. Every engine from the start, at 0.
  poolMetrics(registry).report(() => {
    const byEngine = new Map<string, PoolSnapshot>(
      MODES.map((pool) => [pool, { pool, idle: 0, used: 0, pending: 0 }]),
    );
    for (const { label, idle, busy, waiting } of pools.stats()) {
      const engine = byEngine.get(label) ?? { pool: label, idle: 0, used: 0, pending: 0 };
      engine.idle += idle;
      engine.used += busy;
      engine.pending += waiting;
      byEngine.set(label, engine);
    }
    return byEngine.values();
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
