/** Optional caller authentication of the sync endpoints (`SYNC_SERVICE_TOKEN`): `Authorization: Bearer <token>`. */
import { createHash, timingSafeEqual } from 'node:crypto';

export type CallerCheck = (authorization: string | undefined) => boolean;

/** Every caller passes when no token is configured (the seed's behaviour). */
export function createCallerCheck(serviceToken: string | undefined): CallerCheck {
  if (serviceToken === undefined) return () => true;
  // Fixed-length digests: the comparison takes as long whatever, and wherever, the difference.
  const expected = digest(serviceToken);
  return function callerHasServiceToken(authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
