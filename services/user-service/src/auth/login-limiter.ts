/**
 * Failed logins, counted in Redis per account and per client address, apart:
 * - per account, a backoff instead of a lock: after `maxAttempts` failures each further try
 *   waits 1, 2, 4, ... seconds (at most the window) after the last failure. Someone guessing at
 *   a known account from many addresses is slowed to a crawl, while the account's owner waits
 *   seconds, not the window (a hard lock would let anyone lock any user out);
 * - per address, a plain limit (`maxPerAddress` failures per window): one address trying many
 *   accounts is stopped. Behind an ingress the address is the client's only when the proxy is
 *   trusted (TRUST_PROXY), else every client shares the ingress's address.
 * A successful login clears the account's failures.
 */
import type { Redis } from 'ioredis';
import { sha256 } from '../credentials/token-material';

export interface LoginLimiterOptions {
  redis: Redis;
  maxAttempts: number;
  maxPerAddress: number;
  windowSeconds: number;
  now?: () => number;
}

export function createLoginLimiter(options: LoginLimiterOptions) {
  const { redis, maxAttempts, maxPerAddress, windowSeconds } = options;
  const now = options.now ?? Date.now;
  // The e-mail is hashed: Redis keys are visible to anyone listing them.
  const accountKey = (email: string) => `login:failures:account:${sha256(email.toLowerCase())}`;
  const addressKey = (ip: string) => `login:failures:address:${ip}`;

  return {
    /** Seconds to wait before this attempt may be made; 0 when it may be made now. */
    async attempt(email: string, ip: string): Promise<number> {
      const [address, account] = await Promise.all([
        redis.get(addressKey(ip)),
        redis.hmget(accountKey(email), 'count', 'last'),
      ]);
      if (Number(address ?? 0) >= maxPerAddress) {
        const remaining = await redis.ttl(addressKey(ip));
        return remaining > 0 ? remaining : windowSeconds;
      }
      const failures = Number(account[0] ?? 0);
      if (failures < maxAttempts) return 0;
      const gapMs = Math.min(windowSeconds, 2 ** (failures - maxAttempts)) * 1000;
      const waitMs = Number(account[1] ?? 0) + gapMs - now();
      return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
    },
    /** Counts a failed attempt against the account and the address. */
    async failed(email: string, ip: string): Promise<void> {
      await redis
        .multi()
        .hincrby(accountKey(email), 'count', 1)
        .hset(accountKey(email), 'last', now())
        .expire(accountKey(email), windowSeconds)
        .incr(addressKey(ip))
        .expire(addressKey(ip), windowSeconds, 'NX')
        .exec();
    },
    async succeeded(email: string): Promise<void> {
      await redis.del(accountKey(email));
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
