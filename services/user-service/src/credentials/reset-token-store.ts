/**
 * Password-reset tokens in Redis: only their hash is stored, they expire, and GETDEL makes them
 * single-use. Each user's outstanding tokens are listed too, so a reset ends all of them: an
 * older link mailed earlier (and perhaps read by someone else) stops working with the reset.
 */
import type { Redis } from 'ioredis';
import { sha256 } from './token-material';

/**
 * `namespace` keeps kinds of token apart: `reset:password` (the default) and
 * `verify:email` (e-mail verification links, the same rules).
 */
export function createResetTokenStore(
  redis: Redis,
  ttlSeconds: number,
  namespace = 'reset:password',
) {
  const resetKey = (hash: string) => `${namespace}:${hash}`;
  const userKey = (userId: string) => `${namespace}:user:${userId}`;
  return {
    async issue(token: string, userId: string): Promise<void> {
      const hash = sha256(token);
      await redis
        .multi()
        .set(resetKey(hash), userId, 'EX', ttlSeconds)
        .sadd(userKey(userId), hash)
        .expire(userKey(userId), ttlSeconds)
        .exec();
    },
    /**
     * True at most once per `seconds` for a user (false meanwhile): how often mail for them may
     * go out, so nobody can flood an address with links.
     */
    async mayMailAgain(userId: string, seconds: number): Promise<boolean> {
      if (seconds <= 0) return true;
      return (await redis.set(`${namespace}:mailed:${userId}`, '1', 'EX', seconds, 'NX')) === 'OK';
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
