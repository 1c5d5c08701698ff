/** Optional caller authentication (`PROXY_SERVICE_TOKEN`): `Authorization: Bearer <token>`. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '@pelita/kit';
import type { RequestHandler } from 'express';

/**
 * Route middleware, run before the body is validated: a caller without the token learns nothing,
 * not even whether its description would have been valid.
 */
export function requireServiceToken(serviceToken: string): RequestHandler {
  const presentsToken = createTokenCheck(serviceToken);
  return function requireServiceTokenOfCaller(req, res, next) {
    if (presentsToken(req.headers.authorization)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    next(unauthorized('This proxy requires Authorization: Bearer <service token>'));
  };
}

/** Whether an `Authorization` header value carries `serviceToken` as a bearer token. */
export function createTokenCheck(serviceToken: string): (authorization?: string) => boolean {
  // Fixed-length digests keep the comparison time independent of where, or whether the lengths, differ.
  const expected = digest(serviceToken);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
