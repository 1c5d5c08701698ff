/**
 * A limit on how often one client address may call an unauthenticated auth endpoint (register,
 * forgot-password, reset-password, refresh): a fixed window counted in Redis, so every replica
 * shares it. Beyond the limit: 429 `too_many_requests` with `Retry-After`. The address is the
 * client's only when the ingress is trusted (TRUST_PROXY); else every client shares its address
 * and the limit is the ingress's.
 */
import { HttpError } from '@pelita/kit';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';

export interface RequestLimiterOptions {
  redis: Redis;
  /** Calls per address and endpoint per window. */
  limit: number;
  windowSeconds: number;
}

/** Middleware for one endpoint, named for its counter. */
export type RequestLimiter = (endpoint: string) => RequestHandler;

export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  return (endpoint) =>
    async function limitRequests(req, res, next) {
      const key = `ratelimit:${endpoint}:${req.ip ?? 'unknown'}`;
      try {
        const [[, count], [, ttl]] = (await options.redis
          .multi()
          .incr(key)
          .expire(key, options.windowSeconds, 'NX')
          .ttl(key)
          .exec()) as [[null, number], [null, number], [null, number]];
        if (count > options.limit) {
          const wait = ttl > 0 ? ttl : options.windowSeconds;
          res.setHeader('Retry-After', String(wait));
          return next(
            new HttpError(
              429,
              'too_many_requests',
              `Too many requests from this address; try again in ${wait} s`,
            ),
          );
        }
        next();
      } catch (err) {
        next(err);
      }
    };
}
