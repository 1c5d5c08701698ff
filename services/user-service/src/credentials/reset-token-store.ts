/**
 * Password-reset tokens in Redis: only their hash is stored, they expire, and GETDEL makes them
 * single-use. Each user's outstanding tokens are listed too, so a reset ends all of them: an
 * older link mailed earlier (and perhaps read by someone else) stops working with the reset.
 */
import type { Redis } from 'ioredis';
import { sha256 } from './token-material';

/**
 * `namespace` keeps kinds of token apart: `reset:password` (the default),
 * `verify:email` (e-mail verification links, the same rules) and `verify:email-change` (links
 * confirming a user's new address, each holding that address).
 */
export function createResetTokenStore(
  redis: Redis,
  ttlSeconds: number,
  namespace = 'reset:password',
) {
  const resetKey = (hash: string) => `${namespace}:${hash}`;
  const userKey = (userId: string) => `${namespace}:user:${userId}`;
  return {
    /** `value` (the user by default) is what `peek` and `consume` answer for the token. */
    async issue(token: string, userId: string, value: string = userId): Promise<void> {
      const hash = sha256(token);
      await redis
        .multi()
        .set(resetKey(hash), value, 'EX', ttlSeconds)
        .sadd(userKey(userId), hash)
        .expire(userKey(userId), ttlSeconds)
        .exec();
    },
    /**
     * True at most `limit` times per `windowSeconds` for a user (a fixed window counted in Redis,
     * shared by the replicas; false meanwhile): how often mail for them may go out, so nobody —
     * from however many addresses — can flood an account's mailbox with links. `limit` or
     * `windowSeconds` 0: no limit.
     */
    async mayMail(userId: string, limit: number, windowSeconds: number): Promise<boolean> {
      if (limit <= 0 || windowSeconds <= 0) return true;
      const key = `${namespace}:mailed:${userId}`;
      const [[, count]] = (await redis
        .multi()
        .incr(key)
        .expire(key, windowSeconds, 'NX')
        .exec()) as [[null, number], [null, number]];
      return count <= limit;
    },
    /** The user the token was issued for, without using it up; null when unknown or expired. */
    peek(token: string): Promise<string | null> {
      return redis.get(resetKey(sha256(token)));
    },
    /** The user the token was issued for, once; null when unknown, used or expired. */
    consume(token: string): Promise<string | null> {
      return redis.getdel(resetKey(sha256(token)));
    },
    /** Ends every outstanding reset token of the user. */
    async revokeAllOf(userId: string): Promise<void> {
      const hashes = await redis.smembers(userKey(userId));
      await redis.del(userKey(userId), ...hashes.map(resetKey));
    },
  };
}

export type ResetTokenStore = ReturnType<typeof createResetTokenStore>;
