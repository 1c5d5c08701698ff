/**
 * Caller authentication between services by one shared token (`Authorization: Bearer <token>`),
 * for endpoints that only other services call (proxies, sync triggers).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { unauthorized } from '../errors';

/** Whether an `Authorization` header value carries `token` as its bearer token. */
export function bearerMatches(token: string): (authorization: string | undefined) => boolean {
  // Comparing fixed-length digests takes the same time wherever, or whether, the values differ.
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

/** Guard (see `createService({ guard })`): 401 unless the caller presents `token`. */
export function requireServiceToken(token: string): RequestHandler {
  const presents = bearerMatches(token);
  return function requireServiceTokenOfCaller(req, res, next) {
    if (presents(req.headers.authorization)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    next(unauthorized('This endpoint requires Authorization: Bearer <service token>'));
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
