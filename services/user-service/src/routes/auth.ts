/**
 * POST /auth/login, /auth/refresh, /auth/logout, /auth/register, /auth/verify-email,
 * /auth/resend-verification, /auth/forgot-password, /auth/reset-password; GET /auth/public-key.
 */
import { ACCESS_TOKEN_ISSUER, defineRoute, type RouteDefinition } from '@pelita/kit';
import type { z } from 'zod';
import { TooManyAttemptsError, type LoginSessions } from '../auth/login-sessions';
import type { EmailVerification } from '../auth/email-verification';
import type { PasswordReset } from '../auth/password-reset';
import type { Registration } from '../auth/registration';
import type { RequestLimiter } from '../auth/request-limiter';
import type { SigningKeys } from '../auth/signing-keys';
import {
  BearerHeader,
  ForgotPasswordBody,
  LoginBody,
  MessageResponse,
  PublicKeyResponse,
  RefreshBody,
  RegisterBody,
  ResendVerificationBody,
  ResetPasswordBody,
  VerifyEmailBody,
  TokenPairResponse,
  toNewAccount,
  toTokenPairResponse,
} from '../schemas/auth';
import { Uuid } from '../schemas/common';

const FORGOT_ANSWER = 'If an account with this e-mail exists, a reset link has been sent to it';
const RESEND_ANSWER =
  'If an account with this e-mail waits for its confirmation, a new link has been sent to it';

/** The flows behind `/auth/*`. */
export interface AuthFlows {
  loginSessions: LoginSessions;
  registration: Registration;
  emailVerification: EmailVerification;
  passwordReset: PasswordReset;
  /** Per-address limits of the unauthenticated endpoints a login does not guard. */
  requestLimit: RequestLimiter;
}

export function authRoutes(auth: AuthFlows, keys: SigningKeys): RouteDefinition[] {
  const { loginSessions, registration, emailVerification, passwordReset, requestLimit } = auth;
  const tooMany = { description: 'Too many calls from this address (AUTH_RATE_LIMIT)' };
  const tags = ['auth'];
  /** A public POST /auth/<name> behind the per-address limit of the same name. */
  const limited = <B extends z.ZodType>(
    name: string,
    {
      body,
      responses,
      ...route
    }: Omit<RouteDefinition<B>, 'method' | 'path' | 'tags' | 'public' | 'before' | 'request'> & {
      body: B;
    },
  ) =>
    defineRoute({
      ...route,
      method: 'post',
      path: `/auth/${name}`,
      tags,
      public: true,
      before: [requestLimit(name)],
      request: { body },
      responses: { 429: tooMany, ...responses },
    });
  /**
   * A limited POST that mails a link to an address and answers 202 with the same message whether
   * or not an account has it, so that the answer does not tell which addresses have accounts.
   */
  const mailsLink = <B extends z.ZodType>(
    name: string,
    summary: string,
    body: B,
    send: (body: z.output<B>) => Promise<void>,
    message: string,
  ) =>
    limited(name, {
      summary,
      successStatus: 202,
      body,
      responses: { 202: { description: 'Accepted', schema: MessageResponse } },
      handler: async (input) => {
        await send(input.body as z.output<B>);
        return { message };
      },
    });
  /**
   * A limited POST that redeems the single-use token of a mailed link and answers 200 with a
   * message; a token that is unknown, used or expired answers 400.
   */
  const redeemsLink = <B extends z.ZodType>(
    name: string,
    link: {
      summary: string;
      body: B;
      redeem: (body: z.output<B>) => Promise<void>;
      /** What the 200 answer means, and the message it carries. */
      done: string;
      message: string;
      /** Further refusals of this flow. */
      responses?: RouteDefinition['responses'];
    },
  ) =>
    limited(name, {
      summary: link.summary,
      body: link.body,
      responses: {
        200: { description: link.done, schema: MessageResponse },
        400: { description: 'Invalid, used or expired token' },
        ...link.responses,
      },
      handler: async (input) => {
        await link.redeem(input.body as z.output<B>);
        return { message: link.message };
      },
    });
  return [
    defineRoute({
      method: 'post',
      path: '/auth/login',
      summary: 'Log in with e-mail and password: an access token and a refresh token',
      tags,
      public: true,
      request: { body: LoginBody },
      responses: {
        200: { description: 'Logged in', schema: TokenPairResponse },
        401: { description: 'Wrong e-mail or password' },
        403: {
          description:
            'Account deactivated (`account_inactive`), or its e-mail address not confirmed yet (`email_not_verified`)',
        },
        429: {
          description: 'Too many failed logins of this account (backoff) or from this address',
        },
      },
      handler: async ({ body }, req, res) => {
        try {
          const { tokens, user } = await loginSessions.login(
            body.email,
            body.password,
            req.ip ?? 'unknown',
          );
          res.locals.activityUser = user;
          return toTokenPairResponse(tokens);
        } catch (err) {
          if (err instanceof TooManyAttemptsError)
            res.setHeader('Retry-After', String(err.retryAfterSeconds));
          throw err;
        }
      },
    }),
    limited('refresh', {
      summary: 'Trade a refresh token for a new pair (the old refresh token stops working)',
      body: RefreshBody,
      responses: {
        200: { description: 'New tokens', schema: TokenPairResponse },
        401: {
          description: 'Unknown, expired or replayed refresh token (a replay ends the session)',
        },
      },
      handler: async ({ body }) =>
        toTokenPairResponse(await loginSessions.refresh(body.refresh_token)),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary:
        'End the session of the access token sent (access and refresh token both stop working)',
      tags,
      public: true,
      request: { headers: BearerHeader },
      responses: {
        204: { description: 'Logged out' },
        401: { description: 'No valid, live access token' },
      },
      handler: async ({ headers }, _req, res) => {
        await loginSessions.logout(headers.authorization.replace(/^Bearer\s+/i, ''));
        res.status(204).end();
      },
    }),
    limited('register', {
      summary:
        'Create an account with the registration role; it is usable once its owner follows the link mailed to it',
      successStatus: 201,
      body: RegisterBody,
      responses: {
        201: { description: 'Registered', schema: Uuid },
        403: {
          description: 'Self-registration is off (REGISTRATION_ENABLED), or the license refuses',
        },
        409: { description: 'E-mail or username taken' },
      },
      handler: async ({ body }) => ({ id: await registration.register(toNewAccount(body)) }),
    }),
    redeemsLink('verify-email', {
      summary:
        "Confirm a registered e-mail address with the token of the mailed link (single use); the account can then log in. The link mailed to a user's new address confirms it the same way: the account then takes it",
      body: VerifyEmailBody,
      redeem: ({ token }) => emailVerification.verify(token),
      done: 'Confirmed',
      message: 'E-mail address confirmed; you can log in',
      responses: {
        403: { description: 'The license has no seat left (the link stays valid)' },
        409: { description: 'The new address was taken by another account meanwhile' },
      },
    }),
    mailsLink(
      'resend-verification',
      'Mail a new confirmation link (older ones stop working); the answer is the same whether or not such an account exists',
      ResendVerificationBody,
      ({ email }) => emailVerification.resend(email),
      RESEND_ANSWER,
    ),
    mailsLink(
      'forgot-password',
      'E-mail a reset link; the answer is the same whether or not the account exists',
      ForgotPasswordBody,
      ({ email }) => passwordReset.forgotPassword(email),
      FORGOT_ANSWER,
    ),
    redeemsLink('reset-password', {
      summary:
        'Set a new password with a reset token (single use); ends every session of the account',
      body: ResetPasswordBody,
      redeem: ({ token, password }) => passwordReset.resetPassword(token, password),
      done: 'Password changed',
      message: 'Password changed; log in again',
    }),
    defineRoute({
      method: 'get',
      path: '/auth/public-key',
      summary: 'The public key that verifies access tokens (PEM and JWK)',
      tags,
      public: true,
      responses: { 200: { description: 'The key', schema: PublicKeyResponse } },
      handler: () => ({
        algorithm: 'ES256' as const,
        issuer: ACCESS_TOKEN_ISSUER,
        pem: keys.publicPem,
        jwk: keys.publicJwk,
      }),
    }),
  ];
}
