/**
 * A Redis client from the REDIS_* settings every service names alike. Its own entry,
 * `@pelita/kit/redis-client`: only the services that use Redis install ioredis.
 */
import type { Redis, RedisOptions } from 'ioredis';
import type * as IORedis from 'ioredis';
import { z } from 'zod';
import { optionalSetting } from './config';

/** The settings, to spread into a service's schema. */
export const redisSettings = {
  REDIS_URL: z.string().min(1),
  /** Overrides a password in REDIS_URL: a Secret's value needs no URL encoding this way. */
  REDIS_PASSWORD: optionalSetting,
};

export interface RedisSettings {
  REDIS_URL: string;
  REDIS_PASSWORD?: string | undefined;
}

/**
 * A command fails after two reconnection attempts rather than waiting for ever (ioredis' default
 * is 20); `options` adds to or overrides that (`keyPrefix`, `lazyConnect`, ...).
 */
export function createRedisClient(settings: RedisSettings, options: RedisOptions = {}): Redis {
  // ioredis prefers the URL's password to the options', so the override has to leave the URL.
  const url = settings.REDIS_PASSWORD ? withoutPassword(settings.REDIS_URL) : settings.REDIS_URL;
  // Loaded here, when a service builds its dependencies at start, not by every importer of the kit.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis } = require('ioredis') as typeof IORedis;
  return new Redis(url, {
    maxRetriesPerRequest: 2,
    ...(settings.REDIS_PASSWORD ? { password: settings.REDIS_PASSWORD } : {}),
    ...options,
  });
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url; // not a URL (`host:port`): it carries no password
  }
}
