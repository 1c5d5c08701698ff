/**
 * How many tenants fit on one PostgreSQL, one Redis, one OpenSearch and one operator: N = 1 and
 * 100 tenants (1,000 with TENANT_DENSITY_MAX=1000), each a real PlatformInstall whose services'
 * settings are what the operator renders for it (tenant-density-tenants.ts).
 *
 * Data plane, on the shared test servers: every tenant's storage is made by the services' own
 * start-up code and holds a fixed amount of data (tenant-density-storage.ts). Per N: the run's
 * OpenSearch shards and the node's heap; PostgreSQL connections of a sample of tenants whose
 * core-backend and user service run in this process, idle for longer than their pools' idle
 * time-out; Redis bytes under the tenants' key prefixes; search and chat-history p99 of tenant 0
 * over HTTP, at N against N = 1. Until the node's shard limit, less a reserve for the other
 * engineers' tests, every tenant gets its storage; past it the wall is printed (how many tenants
 * the node holds) and the rest of N runs with the tenants that fit.
 *
 * Control plane (tenant-density-cluster.ts): the N installs on a private apiserver with
 * controllers, scheduler and kwok fake nodes; the operator's time to all Ready, RSS, reconcile p99.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLogger, errorMessage } from '@pelita/kit';
import { startLlmStub } from '@pelita/llm-stub';
import { loadPolicies } from '@pelita/operator';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ratio } from './load';
import { percentile, report, table } from './report';
import { measureCluster, type ClusterFigures } from './tenant-density-cluster';
import {
  connectionsByDatabase,
  redisUsage,
  removeRunData,
  settledHeap,
  shardRoom,
  shardsOf,
  usedMemory,
} from './tenant-density-servers';
import {
  CHAT_SESSION,
  createTemplate,
  createTenant,
  indexesOf,
  startCore,
  startUserService,
  type InProcessService,
  type TenantUser,
} from './tenant-density-storage';
import { tenantFactory, type Tenant } from './tenant-density-tenants';

const POLICIES_DIR = join(__dirname, '..', '..', '..', 'policies');
const MAX = Number(process.env.TENANT_DENSITY_MAX ?? 100);
const STEPS = [1, 100, 1000].filter((n) => n <= MAX);
/** Tenants whose services run idle for the connection count (evenly spread, tenant 0 first). */
const IDLE_SAMPLE = 5;
/**
 * When the sample's connections are counted: just past node-postgres' idle time-out (10 s, which
 * the services' pools keep), while the idle polls still come every few seconds; and once they
 * have backed off past it (kit poll-loop), the state of a tenant nobody uses.
 */
const IDLE_READS_SECONDS = [15, Number(process.env.TENANT_DENSITY_IDLE_SECONDS ?? 60)];
/** Shards the run may add to the shared node at most; and what it leaves for the others' tests. */
const SHARD_CAP = Number(process.env.TENANT_DENSITY_SHARD_CAP ?? 300);
const SHARD_RESERVE = 300;
/** Timed requests per figure: the p99 is then the 10th slowest, not a single outlier. */
const REQUESTS = 1000;
const WARM_UP = 50;
/** Tenants whose storage is made at once (their services' start-ups wait on the servers). */
const CREATE_CONCURRENCY = 4;
const MIB = 1024 * 1024;

interface Column {
  n: number;
  stored: number;
  shards: number;
  heapBytes: number;
  /** Per read of IDLE_READS_SECONDS: connections of each sampled tenant. */
  idlePerTenant: number[][];
  redisBytesPerTenant: number;
  redisUsedPerTenant: number;
  searchP99: number;
  historyP99: number;
  searchP50: number;
  historyP50: number;
  cluster: ClusterFigures | string;
}

export async function run(): Promise<void> {
  const deps = requireEnv('POSTGRES_URL', 'REDIS_URL', 'OPENSEARCH_URL');
  const opensearch = deps.OPENSEARCH_URL;
  const stub = await startLlmStub({ latencyMs: 0 });
  const factory = tenantFactory(
    randomBytes(3).toString('hex'),
    stub.url,
    loadPolicies(POLICIES_DIR),
  );
  const logger = createLogger({ name: 'tenant-density', level: 'error' });
  const admin = new pg.Pool({ connectionString: deps.POSTGRES_URL, max: 2 });
  const redis = new Redis(deps.REDIS_URL);
  const keyPattern = `pelita:${factory.prefix}-*`;
  const runIndexes = new Map<string, number>();
  let measured: InProcessService | undefined;
  try {
    const shards = await shardRoom(opensearch);
    const budget = Math.min(SHARD_CAP, shards.limit - shards.used - SHARD_RESERVE);
    const redisBefore = await usedMemory(redis);
    const { rows } = await admin.query<{ max_connections: string }>('show max_connections');
    const maxConnections = Number(rows[0]?.max_connections);
    const { template, indexes: templateIndexes } = await createTemplate(factory, admin, logger);
    await fetch(`${opensearch}/${templateIndexes.join(',')}?ignore_unavailable=true`, {
      method: 'DELETE',
    });

    const tenants: Tenant[] = [];
    let user: TenantUser | undefined;
    let wall: string | undefined;
    let lastShards = 0;
    const columns: Column[] = [];
    for (const n of STEPS) {
      const started = performance.now();
      while (tenants.length < n && wall === undefined) {
        // Tenant 0 alone first (its shards say what one costs), then a few at a time.
        const runShards = [...runIndexes.values()].reduce((sum, s) => sum + s, 0);
        const fitting =
          lastShards > 0 ? Math.floor((budget - runShards) / lastShards) : Number.POSITIVE_INFINITY;
        const size = Math.min(
          fitting,
          tenants.length === 0 ? 1 : CREATE_CONCURRENCY,
          n - tenants.length,
        );
        if (size <= 0) {
          wall = wallMessage(shards, runShards, tenants.length);
          break;
        }
        const batch = Array.from({ length: size }, (_, i) => factory.tenant(tenants.length + i));
        const made = await Promise.all(
          batch.map((tenant) => createTenant(factory, tenant, template, admin, redis, logger)),
        );
        user ??= made[0];
        for (const tenant of batch) {
          const fresh = indexesOf(factory, tenant).filter((name) => !runIndexes.has(name));
          lastShards = 0;
          for (const name of fresh) {
            const count = await shardsOf(opensearch, [name]);
            runIndexes.set(name, count);
            lastShards += count;
          }
          tenants.push(tenant);
        }
      }
      report(
        `N = ${n}: storage of ${tenants.length} tenants in ${((performance.now() - started) / 1000).toFixed(0)} s${wall ? `; ${wall}` : ''}`,
      );
      const heapBytes = await settledHeap(opensearch);
      measured ??= await startCore(factory, tenants[0]!, logger);
      const latencies = await measureRequests(measured.url, user!);
      const idle = await idleConnections(factory, tenants, admin, logger);
      const redisKeys = await redisUsage(redis, `pelita:${factory.prefix}-[0-9]*`);
      const cluster = await measureCluster(
        Array.from({ length: n }, (_, i) => factory.tenant(i)),
        n > 100 ? 3_600_000 : 300_000,
      ).catch((err: unknown) => `failed: ${errorMessage(err)}`);
      columns.push({
        n,
        stored: tenants.length,
        shards: [...runIndexes.values()].reduce((sum, s) => sum + s, 0),
        heapBytes,
        idlePerTenant: idle,
        redisBytesPerTenant: redisKeys.bytes / tenants.length,
        redisUsedPerTenant: ((await usedMemory(redis)) - redisBefore) / tenants.length,
        searchP99: percentile(latencies.search, 99),
        historyP99: percentile(latencies.history, 99),
        searchP50: percentile(latencies.search, 50),
        historyP50: percentile(latencies.history, 50),
        cluster,
      });
    }
    printTable(columns, shards, maxConnections);
  } finally {
    await measured?.stop();
    const problems = await removeRunData({
      redis,
      admin,
      opensearch,
      keyPattern,
      indexPrefix: `pelita-${factory.prefix}-`,
      indexes: [...runIndexes.keys()],
      databasePrefix: factory.databasePrefix,
    });
    for (const problem of problems) report(`clean-up failed: ${problem}`);
    redis.disconnect();
    await admin.end();
    await stub.close();
  }
}

function wallMessage(room: { limit: number; used: number }, runShards: number, stored: number) {
  const perTenant = runShards / Math.max(1, stored);
  const fit = Math.floor((room.limit - room.used) / perTenant);
  return (
    `shard wall: ${stored} tenants hold ${runShards} shards (${perTenant.toFixed(1)} each); ` +
    `the node's limit is ${room.limit} shards (cluster.max_shards_per_node), ${room.used} were ` +
    `in use by others, so this node holds about ${fit} tenants; no more are made (the run keeps ` +
    `${SHARD_RESERVE} shards free for the other tests, at most ${SHARD_CAP} for itself)`
  );
}

/** Search and chat-history latencies of one tenant, over HTTP, after a warm-up. */
async function measureRequests(url: string, user: TenantUser) {
  const search = () =>
    fetch(`${url}/api/workspaces/${user.workspaceId}/search`, {
      method: 'POST',
      headers: { authorization: user.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'ferry timetable of week 12' }),
    });
  const history = () =>
    fetch(`${url}/v1/api/open-api/workspaces/${user.workspaceId}/history?page=1&limit=20`, {
      headers: { authorization: `Bearer ${user.appKey}`, 'x-session-id': CHAT_SESSION },
    });
  const timed = async (request: () => Promise<Response>, what: string) => {
    const samples: number[] = [];
    for (let i = 0; i < WARM_UP + REQUESTS; i += 1) {
      const started = performance.now();
      const answer = await request();
      const body = await answer.text();
      if (!answer.ok) throw new Error(`${what} answered ${answer.status}: ${body}`);
      if (i >= WARM_UP) samples.push(performance.now() - started);
    }
    return samples;
  };
  return { search: await timed(search, 'search'), history: await timed(history, 'history') };
}

/**
 * Connections per tenant database with a sample of tenants' core-backend and user service
 * running idle here (tenant 0's core-backend is the measured one, already running).
 */
async function idleConnections(
  factory: ReturnType<typeof tenantFactory>,
  tenants: Tenant[],
  admin: pg.Pool,
  logger: ReturnType<typeof createLogger>,
): Promise<number[][]> {
  const step = Math.max(1, Math.floor(tenants.length / IDLE_SAMPLE));
  const sample = tenants.filter((_, i) => i % step === 0).slice(0, IDLE_SAMPLE);
  const running: InProcessService[] = [];
  try {
    for (const tenant of sample) {
      if (tenant !== tenants[0]) running.push(await startCore(factory, tenant, logger));
      running.push(await startUserService(factory, tenant, logger));
    }
    const started = performance.now();
    const reads: number[][] = [];
    for (const seconds of IDLE_READS_SECONDS) {
      const due = started + seconds * 1000 - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due)));
      const counts = await connectionsByDatabase(
        admin,
        sample.map((tenant) => tenant.database),
      );
      reads.push(sample.map((tenant) => counts.get(tenant.database) ?? 0));
    }
    return reads;
  } finally {
    for (const service of running) await service.stop();
  }
}

function printTable(
  columns: Column[],
  room: { limit: number; used: number },
  maxConnections: number,
) {
  const base = columns[0]!;
  type Row = { figure: string; values: Array<number | string>; ratio?: boolean };
  const cluster = (c: Column, pick: (f: ClusterFigures) => number) =>
    typeof c.cluster === 'string' ? 'failed' : pick(c.cluster);
  const rows: Row[] = [
    { figure: 'tenants with storage', values: columns.map((c) => c.stored) },
    { figure: 'OpenSearch shards of the run', values: columns.map((c) => c.shards) },
    {
      figure: 'OpenSearch shards per tenant',
      values: columns.map((c) => (c.shards / c.stored).toFixed(2)),
      ratio: true,
    },
    {
      figure: `tenants per node at that rate (limit ${room.limit} − ${room.used} others')`,
      values: columns.map((c) => Math.floor(((room.limit - room.used) * c.stored) / c.shards)),
    },
    {
      figure: 'OpenSearch heap used MiB (settled, whole node)',
      values: columns.map((c) => (c.heapBytes / MIB).toFixed(0)),
      ratio: true,
    },
    ...IDLE_READS_SECONDS.flatMap((seconds, read): Row[] => [
      {
        figure: `PostgreSQL connections per tenant after ${seconds} s idle (mean of sample; max)`,
        values: columns.map(
          (c) =>
            `${mean(c.idlePerTenant[read]!).toFixed(1)} (${Math.max(...c.idlePerTenant[read]!)})`,
        ),
        ratio: true,
      },
      {
        figure: `PostgreSQL connections of N tenants after ${seconds} s (mean × N; max_connections ${maxConnections})`,
        values: columns.map((c) => Math.round(mean(c.idlePerTenant[read]!) * c.n)),
      },
    ]),
    {
      figure: 'Redis KiB per tenant (MEMORY USAGE of its keys)',
      values: columns.map((c) => (c.redisBytesPerTenant / 1024).toFixed(1)),
      ratio: true,
    },
    {
      figure: 'Redis used_memory growth KiB per tenant',
      values: columns.map((c) => (c.redisUsedPerTenant / 1024).toFixed(1)),
      ratio: true,
    },
    {
      figure: 'operator: time to all Ready s',
      values: columns.map((c) => cluster(c, (f) => Number(f.readySeconds.toFixed(1)))),
      ratio: true,
    },
    {
      figure: 'operator RSS MiB (settled)',
      values: columns.map((c) => cluster(c, (f) => Number((f.rssBytes / MIB).toFixed(1)))),
      ratio: true,
    },
    // Against N = 1, and against the previous N: the first holds what any start with many
    // installs costs once (the heap its first reconciles grew), the second what one more costs.
    ...(['N = 1', 'the previous N'] as const).map((against): Row => ({
      figure: `operator RSS growth MiB per install over ${against}`,
      values: columns.map((c, i) => {
        const from = against === 'N = 1' ? base : columns[i - 1];
        if (i === 0 || !from || typeof c.cluster === 'string' || typeof from.cluster === 'string')
          return '';
        return ((c.cluster.rssBytes - from.cluster.rssBytes) / MIB / (c.n - from.n)).toFixed(3);
      }),
    })),
    {
      figure: 'operator reconcile p99 ms (histogram, interpolated)',
      values: columns.map((c) => cluster(c, (f) => f.reconcileP99Seconds * 1000)),
      ratio: true,
    },
    {
      figure: 'operator reconciles (errors)',
      values: columns.map((c) =>
        typeof c.cluster === 'string'
          ? 'failed'
          : `${c.cluster.reconciles} (${c.cluster.reconcileErrors})`,
      ),
    },
    {
      figure: 'search p99 ms, tenant 0',
      values: columns.map((c) => c.searchP99.toFixed(2)),
      ratio: true,
    },
    {
      figure: 'search p50 ms, tenant 0',
      values: columns.map((c) => c.searchP50.toFixed(2)),
      ratio: true,
    },
    {
      figure: 'chat-history p50 ms, tenant 0',
      values: columns.map((c) => c.historyP50.toFixed(2)),
      ratio: true,
    },
    {
      figure: 'chat-history p99 ms, tenant 0',
      values: columns.map((c) => c.historyP99.toFixed(2)),
      ratio: true,
    },
  ];
  report('');
  table(
    rows.map((row) => {
      const cells: Record<string, string | number> = { figure: row.figure };
      columns.forEach((c, i) => (cells[`N = ${c.n}`] = row.values[i] ?? ''));
      // A cell's figure is its leading number ("1.0 (1)": a mean and its max).
      columns.slice(1).forEach((c, i) => {
        const value = parseFloat(String(row.values[i + 1]));
        const first = parseFloat(String(row.values[0]));
        cells[`${c.n} / 1`] =
          row.ratio && Number.isFinite(value) && Number.isFinite(first) ? ratio(value, first) : '';
      });
      return cells;
    }),
  );
  for (const c of columns) {
    if (typeof c.cluster === 'string') report(`operator at N = ${c.n}: ${c.cluster}`);
  }
}

function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
}
