/**
 * The user service's `/auth/login`, `/auth/refresh` and `/auth/logout`, relayed for the chat
 * page: the Ingress sends every path to the core backend, and the page calls its own origin.
 * Bodies and answers pass through unchanged (tokens included: the core backend keeps none);
 * the caller's address goes on in `X-Forwarded-For`, so the user service's limits per address
 * still see the visitor when its TRUST_PROXY counts this hop.
 */
import { defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import type { Request, Response } from 'express';
import { z } from 'zod';

const LoginBody = z.object({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});
const RefreshBody = z.object({ refresh_token: z.string().min(1).max(4096) });
const BearerHeader = z.object({ authorization: z.string().regex(/^Bearer\s+\S+$/i) });

export interface SignInRelayOptions {
  /** The user service; unset: every relayed call is 503. */
  userServiceUrl: string | undefined;
  timeoutMs: number;
}

export function signInRoutes(options: SignInRelayOptions): RouteDefinition[] {
  const tags = ['sign-in'];
  const passedOn = {
    description: "The user service's answer, as it gave it",
  };
  const away = {
    502: { description: 'The user service answered something unreadable' },
    503: { description: 'The user service is not configured or unreachable' },
    504: { description: 'The user service did not answer in time' },
  };

  async function relay(req: Request, res: Response, path: string, body?: unknown) {
    if (!options.userServiceUrl) {
      throw new HttpError(503, 'sign_in_unavailable', 'Logging in is not configured (URL_USER)');
    }
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress]
      .filter(Boolean)
      .join(', ');
    let answer: globalThis.Response;
    try {
      answer = await fetch(new URL(path, options.userServiceUrl), {
        method: 'POST',
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          ...(req.headers['user-agent'] ? { 'user-agent': req.headers['user-agent'] } : {}),
          'x-forwarded-for': forwardedFor,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'TimeoutError') {
        throw new HttpError(504, 'user_service_timeout', 'The user service did not answer in time');
      }
      throw new HttpError(503, 'user_service_unreachable', 'The user service is unreachable', {
        cause: err,
      });
    }
    const text = await answer.text();
    const retryAfter = answer.headers.get('retry-after');
    if (retryAfter) res.setHeader('Retry-After', retryAfter);
    if (!text) {
      res.status(answer.status).end();
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new HttpError(
        502,
        'user_service_error',
        'The user service answered something unreadable',
      );
    }
    res.status(answer.status).json(json);
  }

  return [
    defineRoute({
      method: 'post',
      path: '/auth/login',
      summary: "Log in (the user service's login, relayed for the chat page)",
      tags,
      public: true,
      request: { body: LoginBody },
      responses: { 200: passedOn, 401: passedOn, 429: passedOn, ...away },
      handler: ({ body }, req, res) => relay(req, res, '/auth/login', body),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/refresh',
      summary: "Trade a refresh token for a new pair (the user service's, relayed)",
      tags,
      public: true,
      request: { body: RefreshBody },
      responses: { 200: passedOn, 401: passedOn, 429: passedOn, ...away },
      handler: ({ body }, req, res) => relay(req, res, '/auth/refresh', body),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary: "End the session (the user service's logout, relayed)",
      tags,
      public: true,
      request: { headers: BearerHeader },
      responses: { 204: { description: 'Logged out' }, 401: passedOn, ...away },
      handler: (_input, req, res) => relay(req, res, '/auth/logout'),
    }),
  ];
}
