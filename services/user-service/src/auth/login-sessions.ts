/**
 * Login, refresh (rotation with reuse detection) and logout: the sessions a user holds and the
 * token pairs that stand for them. Knows nothing of HTTP; throws the kit's errors.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import {
  ACCESS_TOKEN_ALGORITHM,
  ACCESS_TOKEN_ISSUER,
  HttpError,
  InvalidTokenError,
  unauthorized,
  verifyAccessToken,
  type Logger,
  type PasswordHasher,
} from '@pelita/kit';
import jwt from 'jsonwebtoken';
import type { SessionStore } from '../credentials/session-store';
import { randomToken, sha256 } from '../credentials/token-material';
import type { LicenseCheck } from '../license/license-check';
import type { UserRepository } from '../users/user-repository';
import type { AuthMetrics } from './auth-metrics';
import type { LoginLimiter } from './login-limiter';

export interface LoginSessionsDeps {
  users: Pick<UserRepository, 'find' | 'findByEmail' | 'setPassword'>;
  sessions: Pick<SessionStore, 'create' | 'rotate' | 'sessionOf' | 'revoke'>;
  limiter: LoginLimiter;
  license: Pick<LicenseCheck, 'assertLicensed'>;
  metrics: AuthMetrics;
  logger: Logger;
  privateKey: KeyObject;
  publicKey: KeyObject;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  passwords: PasswordHasher;
}

export interface TokenPair {
  accessToken: string;
  /** `<session id>.<secret>`. */
  refreshToken: string;
  expiresInSeconds: number;
  refreshExpiresInSeconds: number;
}

export class TooManyAttemptsError extends HttpError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'too_many_requests', 'Too many login attempts; try again later');
  }
}

const invalidCredentials = () =>
  new HttpError(401, 'invalid_credentials', 'E-mail or password is wrong');

export function createLoginSessions(deps: LoginSessionsDeps) {
  const { users, sessions, metrics, passwords } = deps;

  function signAccess(user: { id: string; username: string }, jti: string): string {
    return jwt.sign({ username: user.username }, deps.privateKey, {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      issuer: ACCESS_TOKEN_ISSUER,
      subject: user.id,
      jwtid: jti,
      expiresIn: deps.accessTtlSeconds,
    });
  }

  function pair(access: string, sid: string, secret: string, flow: string): TokenPair {
    metrics.tokensIssued.inc({ kind: 'access', flow });
    metrics.tokensIssued.inc({ kind: 'refresh', flow });
    return {
      accessToken: access,
      // The session id travels with the secret so a refresh finds its session in one lookup.
      refreshToken: `${sid}.${secret}`,
      expiresInSeconds: deps.accessTtlSeconds,
      refreshExpiresInSeconds: deps.refreshTtlSeconds,
    };
  }

  return {
    async login(
      email: string,
      password: string,
      ip: string,
    ): Promise<{ tokens: TokenPair; user: { id: string; username: string } }> {
      const wait = await deps.limiter.attempt(email, ip);
      if (wait > 0) {
        metrics.logins.inc({ outcome: 'rate_limited' });
        throw new TooManyAttemptsError(wait);
      }
      const user = await users.findByEmail(email);
      // Hash even when there is no such user: answer time must not reveal who has an account.
      const matches = await passwords.verify(
        password,
        user?.passwordHash ?? passwords.unusableHash,
      );
      if (!user || !matches) {
        await deps.limiter.failed(email, ip);
        metrics.logins.inc({ outcome: 'invalid_credentials' });
        throw invalidCredentials();
      }
      if (!user.isActive) {
        metrics.logins.inc({ outcome: 'inactive' });
        throw new HttpError(403, 'account_inactive', 'This account is deactivated');
      }
      // Told only to whoever knows the password: it says nothing about who has an account.
      if (!user.emailVerified) {
        metrics.logins.inc({ outcome: 'unverified' });
        throw new HttpError(
          403,
          'email_not_verified',
          'Confirm your e-mail address first: follow the link mailed to you (POST /auth/resend-verification sends a new one)',
        );
      }
      await deps.license.assertLicensed({ addingUser: false }).catch((err: unknown) => {
        metrics.logins.inc({ outcome: 'license_refused' });
        throw err;
      });
      await deps.limiter.succeeded(email);
      // A hash of an older, cheaper cost is replaced now that the password is at hand.
      if (passwords.needsRehash(user.passwordHash))
        await users.setPassword(user.id, await passwords.hash(password));
      const sid = randomUUID();
      const jti = randomUUID();
      const secret = randomToken();
      await sessions.create(sid, user.id, jti, sha256(secret));
      metrics.logins.inc({ outcome: 'success' });
      return {
        tokens: pair(signAccess(user, jti), sid, secret, 'login'),
        user: { id: user.id, username: user.username },
      };
    },

    async refresh(refreshToken: string): Promise<TokenPair> {
      const [sid, secret] = refreshToken.split('.');
      if (!sid || !secret) throw unauthorized('Invalid refresh token');
      const jti = randomUUID();
      const next = randomToken();
      const result = await sessions.rotate(sid, sha256(secret), sha256(next), jti);
      if (result.outcome === 'reused') {
        metrics.refreshReuse.inc();
        deps.logger.warn({ session: sid }, 'refresh token replayed: session revoked');
        throw unauthorized('Refresh token already used; the session has been ended');
      }
      if (result.outcome === 'unknown') throw unauthorized('Invalid or expired refresh token');
      const user = await users.find(result.userId);
      if (!user?.isActive) {
        await sessions.revoke(sid);
        throw unauthorized('The account is no longer active');
      }
      return pair(signAccess(user, jti), sid, next, 'refresh');
    },

    /** Ends the session of this access token (its refresh token dies with it). */
    async logout(accessToken: string): Promise<void> {
      let jti: string;
      try {
        jti = verifyAccessToken(accessToken, deps.publicKey).jti;
      } catch (err) {
        if (err instanceof InvalidTokenError) throw unauthorized(`Logout failed: ${err.message}`);
        throw err;
      }
      const sid = await sessions.sessionOf(jti);
      if (!sid) throw unauthorized('Logout failed: session ended');
      await sessions.revoke(sid);
    },
  };
}

export type LoginSessions = ReturnType<typeof createLoginSessions>;
