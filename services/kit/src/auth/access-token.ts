/**
 * The access-token contract between the user service (which signs) and every other service
 * (which verifies): an ES256 JWT whose `jti` names a live session kept in Redis.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type Jwt from 'jsonwebtoken';
import { z } from 'zod';

export const ACCESS_TOKEN_ALGORITHM = 'ES256';
export const ACCESS_TOKEN_ISSUER = 'pelita-user-service';

export const AccessClaims = z.object({
  /** User id. */
  sub: z.string().min(1),
  /** User name: the key of `data.user_roles` in the policy data. */
  username: z.string().min(1),
  /** Session id; the session lives in Redis under `sessionKey(jti)` until logout or expiry. */
  jti: z.string().min(1),
  exp: z.number(),
  iat: z.number(),
});
export type AccessClaims = z.infer<typeof AccessClaims>;

/**
 * Redis key of a live access session. The user service sets it with the token's lifetime.
 * Installations sharing one Redis keep apart by a per-install prefix (`REDIS_KEY_PREFIX`) that
 * every service gives its Redis client (ioredis `keyPrefix`): the key here is the part after it.
 */
export function sessionKey(jti: string): string {
  return `session:access:${jti}`;
}

export class InvalidTokenError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidTokenError';
  }
}

export function toPublicKey(key: KeyObject | string): KeyObject {
  return typeof key === 'string' ? createPublicKey(key) : key;
}

let jwtModule: typeof Jwt | undefined;

/**
 * jsonwebtoken, loaded at first use rather than by every importer of the kit; `requireAuth` loads
 * it when a service is built, so no request waits for it.
 */
export function loadJwt(): typeof Jwt {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (jwtModule ??= require('jsonwebtoken') as typeof Jwt);
}

/** Checks signature, algorithm, issuer and expiry; returns the claims or throws InvalidTokenError. */
export function verifyAccessToken(token: string, publicKey: KeyObject): AccessClaims {
  const jwt = loadJwt();
  let payload: unknown;
  try {
    payload = jwt.verify(token, publicKey, {
      algorithms: [ACCESS_TOKEN_ALGORITHM],
      issuer: ACCESS_TOKEN_ISSUER,
    });
  } catch (err) {
    const reason = err instanceof jwt.TokenExpiredError ? 'token expired' : 'invalid token';
    throw new InvalidTokenError(reason);
  }
  const claims = AccessClaims.safeParse(payload);
  if (!claims.success) throw new InvalidTokenError('token lacks required claims');
  return claims.data;
}
