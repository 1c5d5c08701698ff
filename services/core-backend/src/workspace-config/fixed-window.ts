/**
 * A count of events per key in a fixed window, in Redis (shared by the replicas): the window
 * starts with the first event and is never pushed back by later ones.
 */
import type { Redis } from 'ioredis';

/** Counts one more event under `key`: how many the window holds now, and its seconds left. */
export async function countInWindow(
  redis: Redis,
  key: string,
  windowSeconds: number,
): Promise<{ count: number; secondsLeft: number }> {
  const replies = await redis
    .multi()
    .set(key, 0, 'EX', windowSeconds, 'NX')
    .incr(key)
    .ttl(key)
    .exec();
  return {
    count: Number(replies?.[1]?.[1] ?? 0),
    secondsLeft: Number(replies?.[2]?.[1] ?? windowSeconds),
  };
}
