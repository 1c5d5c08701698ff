/** Password-reset tokens in Redis: only their hash is stored, they expire, and GETDEL makes them single-use. */
import type { Redis } from 'ioredis';
import { sha256 } from './token-material';

const resetKey = (hash: string) => `reset:password:${hash}`;

export function createResetTokenStore(redis: Redis, ttlSeconds: number) {
  return {
    async issue(token: string, userId: string): Promise<void> {
      await redis.set(resetKey(sha256(token)), userId, 'EX', ttlSeconds);
    },
    /** The user the token was issued for, once; null when unknown, used or expired. */
    consume(token: string): Promise<string | null> {
      return redis.getdel(resetKey(sha256(token)));
    },
  };
}

export type ResetTokenStore = ReturnType<typeof createResetTokenStore>;
