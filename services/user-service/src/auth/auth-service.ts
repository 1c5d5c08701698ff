/**
 * Login, refresh (rotation with reuse detection), logout, registration, forgot and reset
 * password. Knows nothing of HTTP; throws the kit's errors.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import {
  ACCESS_TOKEN_ALGORITHM,
  ACCESS_TOKEN_ISSUER,
  HttpError,
  errorMessage,
  InvalidTokenError,
  conflict,
  unauthorized,
  verifyAccessToken,
  type Logger,
} from '@pelita/kit';
import jwt from 'jsonwebtoken';
import type { LicenseCheck } from '../license/license-check';
import type { Mailer } from '../mail/mailer';
import type { SyncTrigger } from '../policy-sync/sync-trigger';
import type { RoleRepository } from '../roles/role-repository';
import { isUniqueViolation, type UserRepository } from '../users/user-repository';
import type { AuthMetrics } from './auth-metrics';
import type { LoginLimiter } from './login-limiter';
import type { ResetTokenStore } from './one-time-tokens';
import { UNUSABLE_HASH, hashPassword, verifyPassword } from './passwords';
import type { SessionStore } from './session-store';
import { randomToken, sha256 } from './token-material';

export interface AuthServiceDeps {
  users: UserRepository;
  roles: RoleRepository;
  sessions: SessionStore;
  resetTokens: ResetTokenStore;
  limiter: LoginLimiter;
  mailer: Mailer;
  license: LicenseCheck;
  syncTrigger: SyncTrigger;
  metrics: AuthMetrics;
  logger: Logger;
  privateKey: KeyObject;
  publicKey: KeyObject;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  frontendUrl: string;
  registrationRole: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_expires_in: number;
}

export interface Registration {
  email: string;
  username: string;
  full_name: string;
  password: string;
}

export class TooManyAttemptsError extends HttpError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'too_many_requests', 'Too many login attempts; try again later');
  }
}

const invalidCredentials = () =>
  new HttpError(401, 'invalid_credentials', 'E-mail or password is wrong');

export function createAuthService(deps: AuthServiceDeps) {
  const { users, sessions, metrics } = deps;

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
      access_token: access,
      // The session id travels with the secret so a refresh finds its session in one lookup.
      refresh_token: `${sid}.${secret}`,
      token_type: 'Bearer',
      expires_in: deps.accessTtlSeconds,
      refresh_expires_in: deps.refreshTtlSeconds,
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
      const matches = await verifyPassword(password, user?.password_hash ?? UNUSABLE_HASH);
      if (!user || !matches) {
        metrics.logins.inc({ outcome: 'invalid_credentials' });
        throw invalidCredentials();
      }
      if (!user.is_active) {
        metrics.logins.inc({ outcome: 'inactive' });
        throw new HttpError(403, 'account_inactive', 'This account is deactivated');
      }
      await deps.license.assertLicensed({ addingUser: false }).catch((err: unknown) => {
        metrics.logins.inc({ outcome: 'license_refused' });
        throw err;
      });
      await deps.limiter.reset(email, ip);
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
      if (!user?.is_active) {
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

    async register(input: Registration): Promise<string> {
      const role = await deps.roles.findByName(deps.registrationRole);
      if (!role) {
        throw new HttpError(503, 'registration_unavailable', 'Registration role is not configured');
      }
      await deps.license.assertLicensed({
        addingUser: true,
        activeUsers: () => users.countActive(),
      });
      try {
        const id = await users.insert({
          email: input.email,
          username: input.username,
          fullName: input.full_name,
          passwordHash: await hashPassword(input.password),
          roleId: role.id,
        });
        deps.syncTrigger.trigger('role-users');
        return id;
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('E-mail or username is already registered');
        throw err;
      }
    },

    /** Mails a reset link when the account exists; the caller's answer is the same either way. */
    async forgotPassword(email: string): Promise<void> {
      const user = await users.findByEmail(email);
      if (!user?.is_active) return;
      const token = randomToken();
      await deps.resetTokens.issue(token, user.id);
      const link = `${deps.frontendUrl}/reset-password?token=${encodeURIComponent(token)}`;
      try {
        await deps.mailer.send({
          to: user.email,
          subject: 'Reset your password',
          text: `Someone asked to reset the password of your account.\n\nTo choose a new password, open:\n${link}\n\nIf it was not you, ignore this e-mail.`,
        });
      } catch (err) {
        // Logged, not answered: an error here would tell the caller the account exists.
        deps.logger.error({ err: errorMessage(err) }, 'while sending a reset e-mail');
      }
    },

    async resetPassword(token: string, password: string): Promise<void> {
      const userId = await deps.resetTokens.consume(token);
      if (!userId) {
        throw new HttpError(
          400,
          'invalid_reset_token',
          'The reset link is invalid, used or expired',
        );
      }
      await users.setPassword(userId, await hashPassword(password));
      await sessions.revokeAllOf(userId);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
