/**
 * Middleware for protected routes: a valid access token with a live session (else 401), then
 * an allow from OPA for `{ user, method, path }` (else 403).
 */
import type { KeyObject } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { forbidden, unauthorized } from '../errors';
import {
  InvalidTokenError,
  loadJwt,
  sessionKey,
  toPublicKey,
  verifyAccessToken,
  type AccessClaims,
} from './access-token';
import type { DecideAccess } from './opa-decision';

/**
 * The part of an ioredis client the check needs: the user service's Redis, with the same
 * `keyPrefix` (REDIS_KEY_PREFIX) as the user service's client.
 */
export interface SessionLookup {
  exists(key: string): Promise<number>;
}

export interface RequireAuthOptions {
  /** The key, or where to read it per request (a key learnt after start). */
  publicKey: KeyObject | string | (() => KeyObject);
  sessions: SessionLookup;
  decide: DecideAccess;
  /** Registry for `authz_decision_duration_seconds`; none when omitted. */
  registry?: Registry;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Claims of the verified access token, set by `requireAuth`. */
    auth?: AccessClaims;
  }
}

export function requireAuth(options: RequireAuthOptions): RequestHandler {
  const fixed =
    typeof options.publicKey === 'function' ? undefined : toPublicKey(options.publicKey);
  const keyOf = typeof options.publicKey === 'function' ? options.publicKey : () => fixed!;
  const { sessions, decide } = options;
  const decisionDuration = options.registry && decisionHistogram(options.registry);
  loadJwt(); // now, while the service is built: no request waits for it to load

  return async function authenticateAndAuthorize(req, _res, next) {
    const stopTimer = decisionDuration?.startTimer();
    let outcome = 'error';
    try {
      const claims = verifyAccessToken(bearerToken(req), keyOf());
      if ((await sessions.exists(sessionKey(claims.jti))) === 0) {
        throw new InvalidTokenError('session ended');
      }
      // Known before the decision: a refused request is still recorded as this user's.
      req.auth = claims;
      const allowed = await decide({
        user: claims.username,
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? '/',
      });
      outcome = allowed ? 'allowed' : 'denied';
      if (!allowed)
        throw forbidden(`${req.method} ${req.path} is not granted to ${claims.username}`);
      next();
    } catch (err) {
      if (err instanceof InvalidTokenError) {
        outcome = 'unauthenticated';
        throw unauthorized(`Authentication failed: ${err.message}`);
      }
      throw err;
    } finally {
      stopTimer?.({ outcome });
    }
  };
}

const DECISION_METRIC = 'authz_decision_duration_seconds';

/** One histogram per registry, however many guards a process builds. */
function decisionHistogram(registry: Registry): Histogram<'outcome'> {
  const existing = registry.getSingleMetric(DECISION_METRIC);
  if (existing) return existing as Histogram<'outcome'>;
  return new Histogram({
    name: DECISION_METRIC,
    help: 'Time to authenticate and authorise a request (token, session, policy decision)',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
}

function bearerToken(req: Request): string {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1]) throw new InvalidTokenError('no bearer token');
  return match[1];
}
