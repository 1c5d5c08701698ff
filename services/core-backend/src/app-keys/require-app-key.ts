/**
 * Guard of the open API: `Authorization: Bearer <APP_KEY>` of a live key. Anything else is the
 * seed's 403 (a missing, malformed, unknown or revoked key alike: the answer does not tell which).
 * The key's record is left in `res.locals.appKey` for the handler.
 */
import { HttpError } from '@pelita/kit';
import type { RequestHandler } from 'express';
import type { AppKey, AppKeys } from './app-keys';

declare module 'express-serve-static-core' {
  interface Locals {
    appKey?: AppKey;
  }
}

export const invalidAppKey = () =>
  new HttpError(403, 'invalid_app_key', 'Invalid application key or unauthorised access');

export function requireAppKey(appKeys: Pick<AppKeys, 'verify'>): RequestHandler {
  return function checkAppKey(req, res, next) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1]) return next(invalidAppKey());
    appKeys.verify(match[1]).then((key) => {
      if (!key) return next(invalidAppKey());
      res.locals.appKey = key;
      next();
    }, next);
  };
}

/** The verified key of a request that passed `requireAppKey`. */
export function appKeyOf(locals: { appKey?: AppKey }): AppKey {
  if (!locals.appKey) throw invalidAppKey();
  return locals.appKey;
}
