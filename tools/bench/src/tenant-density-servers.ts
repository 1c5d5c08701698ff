/**
 * What the tenant-density benchmark reads off the shared test servers (OpenSearch shards and
 * heap, PostgreSQL connections per database, Redis memory per key prefix) and how it removes
 * what it made there.
 */
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { json } from './core-backend';

/** The node's shard limit and how many shards exist now (every open shard counts, replicas too). */
export async function shardRoom(opensearch: string): Promise<{ limit: number; used: number }> {
  const settings = await json<Record<string, Record<string, string>>>(
    fetch(`${opensearch}/_cluster/settings?include_defaults=true&flat_settings=true`),
    'cluster settings',
  );
  const perNode = Number(
    settings.transient?.['cluster.max_shards_per_node'] ??
      settings.persistent?.['cluster.max_shards_per_node'] ??
      settings.defaults?.['cluster.max_shards_per_node'] ??
      1000,
  );
  const health = await json<{
    number_of_data_nodes: number;
    active_shards: number;
    unassigned_shards: number;
    initializing_shards: number;
    relocating_shards: number;
  }>(fetch(`${opensearch}/_cluster/health`), 'cluster health');
  return {
    limit: perNode * health.number_of_data_nodes,
    used:
      health.active_shards +
      health.unassigned_shards +
      health.initializing_shards +
      health.relocating_shards,
  };
}

/** Shards (primaries and replicas, assigned or not) of each of `indexes` that exists. */
export async function shardsOf(opensearch: string, indexes: string[]): Promise<number> {
  let total = 0;
  // A few dozen names per request keeps the URL short.
  for (let i = 0; i < indexes.length; i += 40) {
    const names = indexes.slice(i, i + 40).join(',');
    const settings = await json<
      Record<
        string,
        { settings: { index: { number_of_shards: string; number_of_replicas: string } } }
      >
    >(
      fetch(
        `${opensearch}/${names}/_settings/index.number_of_shards,index.number_of_replicas?ignore_unavailable=true`,
      ),
      'index settings',
    );
    for (const { settings: index } of Object.values(settings)) {
      total += Number(index.index.number_of_shards) * (1 + Number(index.index.number_of_replicas));
    }
  }
  return total;
}

/**
 * Heap used on the OpenSearch nodes, the lowest of several readings over a few seconds: a
 * reading right after a young collection is the closest to what is live, whatever the GC does.
 */
export async function settledHeap(
  opensearch: string,
  readings = 12,
  everyMs = 500,
): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < readings; i += 1) {
    const stats = await json<{
      nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number } } }>;
    }>(fetch(`${opensearch}/_nodes/stats/jvm`), '_nodes/stats/jvm');
    const used = Object.values(stats.nodes).reduce(
      (sum, n) => sum + n.jvm.mem.heap_used_in_bytes,
      0,
    );
    lowest = Math.min(lowest, used);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return lowest;
}

/** Connections open to each database, by state (`idle`, `active`, ...). */
export async function connectionsByDatabase(
  admin: pg.Pool,
  databases: string[],
): Promise<Map<string, number>> {
  const { rows } = await admin.query<{ datname: string; count: string }>(
    `select datname, count(*) from pg_stat_activity where datname = any($1) group by datname`,
    [databases],
  );
  return new Map(rows.map((row) => [row.datname, Number(row.count)]));
}

/** Every key under `pattern` (a SCAN MATCH glob), page by page. */
async function keysMatching(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, page] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...page);
  } while (cursor !== '0');
  return keys;
}

/** Keys and their MEMORY USAGE (bytes, key and value with overhead) under `pattern`. */
export async function redisUsage(
  redis: Redis,
  pattern: string,
): Promise<{ keys: number; bytes: number }> {
  const keys = await keysMatching(redis, pattern);
  let bytes = 0;
  for (const key of keys) bytes += Number((await redis.memory('USAGE', key)) ?? 0);
  return { keys: keys.length, bytes };
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

/** Removes the run's keys, indexes and databases; each step is tried even when one fails. */
export async function removeRunData(options: {
  redis: Redis;
  admin: pg.Pool;
  opensearch: string;
  keyPattern: string;
  indexPrefix: string;
  indexes: string[];
  databasePrefix: string;
}): Promise<string[]> {
  const problems: string[] = [];
  const attempt = async (what: string, work: () => Promise<void>) => {
    await work().catch((err: unknown) => problems.push(`${what}: ${String(err)}`));
  };
  await attempt('redis keys', async () => {
    const keys = await keysMatching(options.redis, options.keyPattern);
    for (let i = 0; i < keys.length; i += 500)
      await options.redis.unlink(...keys.slice(i, i + 500));
  });
  await attempt('indexes', async () => {
    const listed = await json<Array<{ index: string }>>(
      fetch(`${options.opensearch}/_cat/indices/${options.indexPrefix}*?format=json&h=index`),
      '_cat/indices',
    );
    const names = [...new Set([...options.indexes, ...listed.map((row) => row.index)])];
    for (let i = 0; i < names.length; i += 40) {
      const answer = await fetch(
        `${options.opensearch}/${names.slice(i, i + 40).join(',')}?ignore_unavailable=true`,
        { method: 'DELETE' },
      );
      if (!answer.ok) throw new Error(`DELETE indexes answered ${answer.status}`);
    }
  });
  await attempt('databases', async () => {
    const { rows } = await options.admin.query<{ datname: string }>(
      `select datname from pg_database where starts_with(datname, $1)`,
      [options.databasePrefix],
    );
    for (const { datname } of rows) {
      await options.admin.query(`drop database if exists ${datname} with (force)`);
    }
  });
  return problems;
}
