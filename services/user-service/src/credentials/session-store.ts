/**
 * Sessions in Redis. An access session is the kit's `session:access:<jti>` (value: the session
 * id), living as long as the access token. A session (`session:refresh:<sid>`, a hash) holds the
 * user, the hash of the one refresh token currently valid and the current access jti; every
 * refresh replaces both. `user:sessions:<userId>` lists a user's session ids for revoking all.
 */
import { sessionKey } from '@pelita/kit';
import type { Redis } from 'ioredis';

export interface SessionStoreOptions {
  redis: Redis;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

export type RotateResult =
  { outcome: 'rotated'; userId: string } | { outcome: 'reused' } | { outcome: 'unknown' };

const refreshKey = (sid: string) => `session:refresh:${sid}`;
const userSessionsKey = (userId: string) => `user:sessions:${userId}`;

// Compare-and-swap of the refresh hash in one step, so two concurrent refreshes with the same
// token cannot both win. A wrong hash on a live session is a replay: the session is ended.
const ROTATE = `
local session = KEYS[1]
if redis.call('exists', session) == 0 then return {'unknown'} end
local current = redis.call('hget', session, 'refresh')
local user = redis.call('hget', session, 'user')
local oldJti = redis.call('hget', session, 'jti')
if current ~= ARGV[1] then
  redis.call('del', session, ARGV[4] .. oldJti)
  return {'reused'}
end
redis.call('del', ARGV[4] .. oldJti)
redis.call('hset', session, 'refresh', ARGV[2], 'jti', ARGV[3])
redis.call('set', ARGV[4] .. ARGV[3], ARGV[6], 'EX', ARGV[5])
return {'rotated', user}
`;

export function createSessionStore({
  redis,
  accessTtlSeconds,
  refreshTtlSeconds,
}: SessionStoreOptions) {
  // The script builds access-session keys from this argument: ioredis prefixes only the keys it
  // is given (KEYS), so the client's prefix (REDIS_KEY_PREFIX) is added here.
  const accessPrefix = `${redis.options.keyPrefix ?? ''}${sessionKey('')}`;
  return {
    async create(sid: string, userId: string, jti: string, refreshHash: string): Promise<void> {
      await redis
        .multi()
        .hset(refreshKey(sid), { user: userId, refresh: refreshHash, jti, created: Date.now() })
        .expire(refreshKey(sid), refreshTtlSeconds)
        .set(sessionKey(jti), sid, 'EX', accessTtlSeconds)
        .sadd(userSessionsKey(userId), sid)
        .expire(userSessionsKey(userId), refreshTtlSeconds)
        .exec();
    },

    /** Replaces the refresh hash and access jti when `presentedHash` is the current one. */
    async rotate(
      sid: string,
      presentedHash: string,
      newHash: string,
      newJti: string,
    ): Promise<RotateResult> {
      const [outcome, userId] = (await redis.eval(
        ROTATE,
        1,
        refreshKey(sid),
        presentedHash,
        newHash,
        newJti,
        accessPrefix,
        String(accessTtlSeconds),
        sid,
      )) as [string, string?];
      if (outcome === 'rotated' && userId) return { outcome, userId };
      return outcome === 'reused' ? { outcome } : { outcome: 'unknown' };
    },

    /** The session id an access token's jti belongs to, while it is live. */
    sessionOf(jti: string): Promise<string | null> {
      return redis.get(sessionKey(jti));
    },

    async revoke(sid: string): Promise<void> {
      const [jti, userId] = await redis.hmget(refreshKey(sid), 'jti', 'user');
      const keys = [refreshKey(sid), ...(jti ? [sessionKey(jti)] : [])];
      await redis.del(...keys);
      if (userId) await redis.srem(userSessionsKey(userId), sid);
    },

    /**
     * The user's live sessions, newest first: id and start (null for sessions made before
     * starts were recorded). Ids of sessions that expired meanwhile are dropped from the list.
     */
    async listOf(userId: string): Promise<Array<{ id: string; createdAt: Date | null }>> {
      const sids = await redis.smembers(userSessionsKey(userId));
      const live: Array<{ id: string; createdAt: Date | null }> = [];
      for (const sid of sids) {
        const [user, created] = await redis.hmget(refreshKey(sid), 'user', 'created');
        if (user !== userId) {
          await redis.srem(userSessionsKey(userId), sid);
          continue;
        }
        live.push({ id: sid, createdAt: created ? new Date(Number(created)) : null });
      }
      return live.sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0));
    },

    /** The user a session belongs to, while it lives. */
    async ownerOf(sid: string): Promise<string | null> {
      return redis.hget(refreshKey(sid), 'user');
    },

    /** Ends every session of the user except `keepSid` (the one asking). */
    async revokeAllBut(userId: string, keepSid: string | null): Promise<void> {
      const sids = await redis.smembers(userSessionsKey(userId));
      for (const sid of sids) if (sid !== keepSid) await this.revoke(sid);
    },

    async revokeAllOf(userId: string): Promise<void> {
      const sids = await redis.smembers(userSessionsKey(userId));
      for (const sid of sids) await this.revoke(sid);
      await redis.del(userSessionsKey(userId));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
