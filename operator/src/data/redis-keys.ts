/**
 * Deletes an install's Redis keys by their prefix: SCAN pages of keys matching the prefix, each
 * page UNLINKed (freed in the background), never KEYS or FLUSHDB, which would block the server
 * or take every tenant's keys with them.
 */
import { createRedisClient, type RedisSettings } from '@pelita/kit/redis-client';

/** Keys per SCAN page (a hint to Redis) and so per UNLINK. */
const PAGE = 500;

/** Deletes every key under `prefix`; answers how many. An empty prefix is refused. */
export async function deleteKeysUnder(server: RedisSettings, prefix: string): Promise<number> {
  if (prefix === '') throw new Error('an empty key prefix would delete every key');
  const redis = createRedisClient(server, {
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 1,
    // Down is a failure to report (and retry later), not a reason to wait here.
    retryStrategy: (attempt) => (attempt > 2 ? null : 200),
  });
  redis.on('error', () => undefined); // each failed command reports its own error
  try {
    await redis.connect();
    const match = `${escapeGlob(prefix)}*`;
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', PAGE);
      if (keys.length > 0) deleted += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** SCAN's MATCH is a glob: the prefix's own `*`, `?`, `[`, `]` and `\` must match themselves. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
