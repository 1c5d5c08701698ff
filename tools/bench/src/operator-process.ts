/** The built operator as a process of its own, and the figures it reports on `/metrics`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '@pelita/kit';
import { waitFor } from '@pelita/testenv';
import { startService, type StartedService } from './process';

const ROOT = join(__dirname, '..', '..', '..');
/** Another build to measure (`BENCH_OPERATOR_MAIN=/path/to/dist/main.js`): before and after a change. */
const OPERATOR_MAIN = process.env.BENCH_OPERATOR_MAIN || join(ROOT, 'operator', 'dist', 'main.js');
const OPERATOR_DOCKERFILE = join(ROOT, 'images', 'operator.Dockerfile');

/**
 * The Node flags the operator's image starts it with (its CMD, `node <flags> dist/main.js`): the
 * bench measures the process as it runs in a cluster, the runtime's memory settings included.
 */
function imageNodeFlags(dockerfile = readFileSync(OPERATOR_DOCKERFILE, 'utf8')): string[] {
  const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1];
  if (!cmd) throw new Error(`${OPERATOR_DOCKERFILE} has no exec-form CMD`);
  const argv = JSON.parse(cmd) as string[];
  return argv.slice(1, -1);
}

/**
 * RSS is read after this long idle: the steady state a platform team pays. Measured every 5 s
 * over 60 s after settling, it no longer moved after the first seconds: an idle operator
 * allocates nothing, so V8 collects nothing more and glibc returns nothing.
 */
export const MEMORY_SETTLE_MS = 30_000;

export interface OperatorProcess extends StartedService {
  /** The sum of every series of `name` (all label values), or 0 when it has none yet. */
  metric(name: string): Promise<number>;
  /** Each series of `name` by its label values, e.g. `{ 'verb="list"': 8 }`. */
  series(name: string): Promise<Record<string, number>>;
  /** The `q` quantile (0-1) of histogram `name`, interpolated in its bucket as Prometheus does. */
  quantile(name: string, q: number): Promise<number>;
}

export async function startOperator(
  kubeconfigPath: string,
  namespace: string,
): Promise<OperatorProcess> {
  const service = await startService(OPERATOR_MAIN, {
    readyPath: '/readyz',
    env: {
      KUBECONFIG: kubeconfigPath,
      WATCH_NAMESPACE: namespace,
      LEADER_ELECTION: 'false',
      LOG_LEVEL: 'warn',
      POD_NAME: `bench-operator-${process.pid}`,
      POD_NAMESPACE: namespace,
      POLICIES_DIR: join(ROOT, 'policies'),
      NODE_OPTIONS: imageNodeFlags().join(' '),
    },
  });
  const series = async (name: string) => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const values: Record<string, number> = {};
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name} `) && !line.startsWith(`${name}{`)) continue;
      const labels = line.slice(name.length, line.lastIndexOf(' ')).replace(/^\{|\}$/g, '');
      values[labels] = Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return values;
  };
  return {
    ...service,
    series,
    metric: async (name) => Object.values(await series(name)).reduce((sum, v) => sum + v, 0),
    quantile: async (name, q) => histogramQuantile(await series(`${name}_bucket`), q),
  };
}

/** Prometheus' histogram_quantile over one histogram's cumulative buckets (`le="0.5"` → count). */
function histogramQuantile(buckets: Record<string, number>, q: number): number {
  const sorted = Object.entries(buckets)
    .map(([labels, count]) => {
      const le = /le="([^"]+)"/.exec(labels)?.[1] ?? '';
      return { le: le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), count };
    })
    .sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let lower = { le: 0, count: 0 };
  for (const bucket of sorted) {
    if (bucket.count >= rank) {
      // Beyond the last finite bound Prometheus answers that bound.
      if (!Number.isFinite(bucket.le)) return lower.le;
      const inBucket = bucket.count - lower.count;
      return (
        lower.le + (bucket.le - lower.le) * (inBucket === 0 ? 1 : (rank - lower.count) / inBucket)
      );
    }
    lower = bucket;
  }
  return lower.le;
}

/**
 * Resolves once the operator has run `reconciles` successful reconciles and its queue has stayed
 * empty with no further reconcile for `quietMs`: the work the events caused is done.
 */
export async function settled(
  operator: OperatorProcess,
  reconciles: number,
  timeoutMs: number,
  quietMs = 1000,
): Promise<void> {
  let last = -1;
  let quietSince = Date.now();
  await waitFor(
    async () => {
      const done = await operator.metric('pelita_operator_reconcile_total');
      const depth = await operator.metric('pelita_operator_queue_depth');
      if (done === last && depth === 0)
        return done >= reconciles && Date.now() - quietSince >= quietMs;
      last = done;
      quietSince = Date.now();
      return false;
    },
    { what: `the operator to settle after ${reconciles} reconciles`, timeoutMs, intervalMs: 100 },
  ).catch((err: unknown) => {
    throw new Error(`${errorMessage(err)} (${last} reconciles so far)`);
  });
}
