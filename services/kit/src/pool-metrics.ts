/**
 * Database connection-pool metrics, one set for every service: OpenTelemetry's
 * `db.client.connection.*` conventions under their Prometheus names, labelled by `pool`.
 *
 * - `db_client_connection_count{pool, state="idle"|"used"}`: connections held (used: lent out or
 *   still opening)
 * - `db_client_connection_max{pool}`: the most the pool may open
 * - `db_client_connection_pending_requests{pool}`: requests waiting for a connection
 * - `db_client_connection_wait_time_seconds{pool}`: time to obtain a connection (queueing plus
 *   opening a new one), for the waits that ended with one
 * - `db_client_connection_timeouts_total{pool}`: waits given up after the pool's time-out
 *
 * The gauges are read from the pools at scrape time, so they cost nothing between scrapes.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PG_CONNECT_TIMEOUTS } from './dependency-failure';

export interface PoolSnapshot {
  pool: string;
  idle: number;
  used: number;
  pending: number;
  /** Omitted when the pool has no single bound (db-proxy's pools per target). */
  max?: number;
}

/** How one wait for a connection ended. */
export type WaitOutcome = 'acquired' | 'timeout' | 'error';

export interface PoolMetrics {
  /** Reports the pools `read` returns at every scrape (each pool name once across sources). */
  report(read: () => Iterable<PoolSnapshot>): void;
  /** Starts timing a wait for a connection of `pool`; call the result once, when it ends. */
  waitStarted(pool: string): (outcome: WaitOutcome) => void;
}

const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const byRegistry = new WeakMap<Registry, PoolMetrics>();

/** The pool metrics of `registry`, registered on first use (one set per registry). */
export function poolMetrics(registry: Registry): PoolMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = createPoolMetrics(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

function createPoolMetrics(registry: Registry): PoolMetrics {
  const sources: Array<() => Iterable<PoolSnapshot>> = [];
  const snapshots = function* (): Generator<PoolSnapshot> {
    for (const read of sources) yield* read();
  };
  new Gauge({
    name: 'db_client_connection_count',
    help: 'Database connections held by the pool, by state (idle, or used: lent out or opening)',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { pool, idle, used } of snapshots()) {
        this.set({ pool, state: 'idle' }, idle);
        this.set({ pool, state: 'used' }, used);
      }
    },
  });
  new Gauge({
    name: 'db_client_connection_max',
    help: 'The most database connections the pool may open',
    labelNames: ['pool'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { pool, max } of snapshots()) if (max !== undefined) this.set({ pool }, max);
    },
  });
  new Gauge({
    name: 'db_client_connection_pending_requests',
    help: 'Requests waiting for a database connection from the pool',
    labelNames: ['pool'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { pool, pending } of snapshots()) this.set({ pool }, pending);
    },
  });
  const waitTime = new Histogram({
    name: 'db_client_connection_wait_time_seconds',
    help: 'Time to obtain a database connection from the pool (waiting plus opening a new one)',
    labelNames: ['pool'] as const,
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const timeouts = new Counter({
    name: 'db_client_connection_timeouts_total',
    help: 'Waits for a database connection given up after the pool time-out',
    labelNames: ['pool'] as const,
    registers: [registry],
  });
  const timed = new Set<string>();
  return {
    report(read) {
      sources.push(read);
    },
    waitStarted(pool) {
      if (!timed.has(pool)) {
        // Series from the first wait on, with a zero time-out count rather than none.
        timed.add(pool);
        timeouts.inc({ pool }, 0);
        waitTime.zero({ pool });
      }
      const start = process.hrtime.bigint();
      return (outcome) => {
        if (outcome === 'acquired') {
          waitTime.observe({ pool }, Number(process.hrtime.bigint() - start) / 1e9);
        } else if (outcome === 'timeout') {
          timeouts.inc({ pool });
        }
      };
    },
  };
}

/** What `observePgPool` uses of a `pg.Pool` (node-postgres 8). */
export interface PgPoolLike {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly options: { max?: number };
  connect(...args: unknown[]): unknown;
}

type ConnectCallback = (err: Error | undefined, client?: unknown, done?: unknown) => void;

/**
 * Reports a node-postgres pool as `name` on `registry`: its counts at every scrape, and every
 * `connect` (which `pool.query` goes through too) timed and its time-outs counted.
 */
export function observePgPool(registry: Registry, pool: PgPoolLike, name = 'main'): void {
  const metrics = poolMetrics(registry);
  metrics.report(() => [
    {
      pool: name,
      idle: pool.idleCount,
      used: pool.totalCount - pool.idleCount,
      pending: pool.waitingCount,
      max: pool.options.max ?? 10,
    },
  ]);
  // Registered from the start, so the panels show 0 rather than nothing before the first wait.
  metrics.waitStarted(name);
  const connect: (callback?: ConnectCallback) => unknown = pool.connect.bind(pool);
  const failed = (err: unknown): WaitOutcome =>
    err instanceof Error && PG_CONNECT_TIMEOUTS.has(err.message) ? 'timeout' : 'error';
  pool.connect = function timedConnect(callback?: ConnectCallback): unknown {
    const done = metrics.waitStarted(name);
    if (typeof callback === 'function') {
      return connect((err, client, release) => {
        done(err ? failed(err) : 'acquired');
        callback(err, client, release);
      });
    }
    return (connect() as Promise<unknown>).then(
      (client) => {
        done('acquired');
        return client;
      },
      (err: unknown) => {
        done(failed(err));
        throw err;
      },
    );
  };
}
