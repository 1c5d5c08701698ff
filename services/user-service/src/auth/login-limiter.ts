/** Login attempts per e-mail and client address, counted in Redis over a fixed window. */
import type { Redis } from 'ioredis';
import { sha256 } from '../credentials/token-material';

export interface LoginLimiterOptions {
  redis: Redis;
  maxAttempts: number;
  windowSeconds: number;
}

export function createLoginLimiter({ redis, maxAttempts, windowSeconds }: LoginLimiterOptions) {
  // The e-mail is hashed: Redis keys are visible to anyone listing them.
  const key = (email: string, ip: string) => `login:attempts:${sha256(email.toLowerCase())}:${ip}`;
  return {
    /** Counts this attempt; returns the seconds to wait when it is over the limit, else 0. */
    async attempt(email: string, ip: string): Promise<number> {
      const k = key(email, ip);
      const results = await redis.multi().incr(k).expire(k, windowSeconds, 'NX').exec();
      const count = Number(results?.[0]?.[1] ?? 0);
      if (count <= maxAttempts) return 0;
      const remaining = await redis.ttl(k);
      return remaining > 0 ? remaining : windowSeconds;
    },
    async reset(email: string, ip: string): Promise<void> {
      await redis.del(key(email, ip));
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
