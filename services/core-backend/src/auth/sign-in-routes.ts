/** The chat page's sign-in, relayed to the user service (`auth/sign-in-relay.ts`). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { SignInRelay } from './sign-in-relay';

const LoginBody = z.object({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});
const RefreshBody = z.object({ refresh_token: z.string().min(1).max(4096) });
const BearerHeader = z.object({ authorization: z.string().regex(/^Bearer\s+\S+$/i) });

export function signInRoutes(signIn: SignInRelay): RouteDefinition[] {
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
    const answer = await signIn(path, {
      ...(body === undefined ? {} : { body }),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
      forwardedFor: [req.headers['x-forwarded-for'], req.socket.remoteAddress]
        .filter(Boolean)
        .join(', '),
    });
    if (answer.retryAfter) res.setHeader('Retry-After', answer.retryAfter);
    if (answer.json === undefined) res.status(answer.status).end();
    else res.status(answer.status).json(answer.json);
  }

  // The two calls that send a body and answer a token pair.
  const withBody = [
    ['/auth/login', LoginBody, "Log in (the user service's login, relayed for the chat page)"],
    [
      '/auth/refresh',
      RefreshBody,
      "Trade a refresh token for a new pair (the user service's, relayed)",
    ],
  ] as const;
  return [
    ...withBody.map(([path, body, summary]) =>
      defineRoute({
        method: 'post',
        path,
        summary,
        tags,
        public: true,
        request: { body },
        responses: { 200: passedOn, 401: passedOn, 429: passedOn, ...away },
        handler: (input, req, res) => relay(req, res, path, input.body),
      }),
    ),
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
