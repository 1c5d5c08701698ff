/**
 * One dashboard page or form action as a kit route: the form body parsed, the session found,
 * the access rule checked (anonymous, half logged-in, or a permission), the anti-forgery token
 * of every POST checked, and the answer rendered as HTML — errors included, as HTML pages.
 */
import { defineRoute, HttpError, toHttpError, type RouteDefinition } from '@pelita/kit';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { z } from 'zod';
import type { Actor } from '../activity/activity-log';
import type { Account } from '../admins/accounts';
import type { Permission } from '../admins/permissions';
import { readCookie, type CookieNames } from '../auth/cookies';
import { CSRF_FIELD, sameOrigin, sameToken } from '../auth/csrf';
import { dashboardVisitor } from '../auth/dashboard-visitor';
import type { Session, SessionStore } from '../auth/session-store';
import type { FormBody } from '../records/form-input';
import type { Queryable } from '../store/sql';
import { html, type Html } from './html';
import { layout, type Viewer } from './layout';

export type Access = 'anonymous' | 'second-factor' | 'signed-in' | Permission;

export interface PageContext {
  req: Request;
  res: Response;
  form: FormBody;
  query: Record<string, string>;
  params: Record<string, string>;
  session: Session | null;
  account: Account | null;
  viewer: Viewer | undefined;
  actor: Actor;
}

export type PageResult = { html: Html; status?: number } | { redirect: string };

export interface PageEnvironment {
  sessions: SessionStore;
  cookies: CookieNames;
  pool: Queryable;
}

const SECURITY_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // No script at all: every form works without JavaScript, and nothing injected could run.
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on form posts, hiding the origin check.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

function sendHtml(res: Response, status: number, page: Html): void {
  res.status(status).set(SECURITY_HEADERS).send(page.text);
}

export function errorPage(res: Response, err: HttpError, viewer?: Viewer): void {
  const title =
    err.status === 403
      ? 'Not allowed'
      : err.status === 404
        ? 'Not found'
        : err.status >= 500
          ? 'Something failed'
          : 'Cannot do that';
  sendHtml(
    res,
    err.status,
    layout({
      title,
      viewer,
      body: html`<p class="error-text">${err.message}</p>
        <p><a href="/">Back to the home page</a></p>`,
    }),
  );
}

const formParser = express.urlencoded({ extended: false, limit: '200kb', parameterLimit: 500 });

/** Body-parser failures (too large, malformed) become HTML pages, not the kit's JSON. */
const parseForm: RequestHandler[] = [
  formParser,
  // An error-handling middleware in the route's chain (four arguments), typed as express allows.
  ((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    errorPage(res, toHttpError(err));
  }) as unknown as RequestHandler,
];

const htmlResponse = { description: 'An HTML page', contentType: 'text/html', schema: z.string() };

export function pageRoute(
  env: PageEnvironment,
  definition: {
    method: 'get' | 'post';
    path: string;
    summary: string;
    access: Access;
    handler: (ctx: PageContext) => Promise<PageResult>;
  },
): RouteDefinition {
  return defineRoute({
    method: definition.method,
    path: definition.path,
    summary: definition.summary,
    tags: ['dashboard'],
    public: true,
    ...(definition.method === 'post'
      ? { request: { bodyContentType: 'application/x-www-form-urlencoded' } }
      : {}),
    before: definition.method === 'post' ? parseForm : [],
    responses: {
      200: htmlResponse,
      303: { description: 'Redirect after a form, or to the login page' },
      400: htmlResponse,
      403: htmlResponse,
      404: htmlResponse,
    },
    handler: async (_input, req, res) => {
      let viewer: Viewer | undefined;
      try {
        const ctx = await context(env, req, res);
        viewer = ctx.viewer;
        const refusal = checkAccess(definition.access, ctx);
        if (refusal) return finish(res, refusal, viewer);
        if (definition.method === 'post') checkForgery(env, ctx, definition.access);
        finish(res, await definition.handler(ctx), viewer);
      } catch (err) {
        const httpError = toHttpError(err);
        if (httpError.status >= 500) req.log.error({ err }, 'dashboard request failed');
        errorPage(res, httpError, viewer);
      }
    },
  });
}

function finish(res: Response, result: PageResult, _viewer: Viewer | undefined): void {
  if ('redirect' in result) {
    res.status(303).set({ location: result.redirect, 'cache-control': 'no-store' }).end();
    return;
  }
  sendHtml(res, result.status ?? 200, result.html);
}

async function context(env: PageEnvironment, req: Request, res: Response): Promise<PageContext> {
  const visitor = await dashboardVisitor(
    env.pool,
    env.sessions,
    readCookie(req, env.cookies.session),
  );
  const account = visitor?.account ?? null;
  const live = visitor?.session ?? null;
  const viewer =
    live?.stage === 'full' && account
      ? {
          name: account.name,
          email: account.email,
          permissions: account.permissions,
          csrfToken: live.csrfToken,
        }
      : undefined;
  const stringsOf = (source: unknown) =>
    Object.fromEntries(
      Object.entries((source ?? {}) as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
  return {
    req,
    res,
    form: (req.body ?? {}) as FormBody,
    query: stringsOf(req.query),
    params: stringsOf(req.params),
    session: live,
    account,
    viewer,
    actor: { id: account?.id ?? '', email: account?.email ?? '', ip: req.ip },
  };
}

function checkAccess(access: Access, ctx: PageContext): PageResult | null {
  if (access === 'anonymous') return ctx.viewer ? { redirect: '/' } : null;
  if (access === 'second-factor') {
    if (ctx.viewer) return { redirect: '/' };
    return ctx.session?.stage === 'password' ? null : { redirect: '/login' };
  }
  if (!ctx.viewer) return { redirect: '/login' };
  if (access !== 'signed-in' && !ctx.viewer.permissions.includes(access)) {
    throw new HttpError(403, 'forbidden', 'Your role does not allow this page.');
  }
  return null;
}

function checkForgery(env: PageEnvironment, ctx: PageContext, access: Access): void {
  const given = ctx.form[CSRF_FIELD];
  const expected =
    access === 'anonymous' ? readCookie(ctx.req, env.cookies.loginCsrf) : ctx.session?.csrfToken;
  if (!sameOrigin(ctx.req) || expected === undefined || !sameToken(given, expected)) {
    throw new HttpError(
      403,
      'csrf_refused',
      'This form has expired or did not come from this dashboard. Reload the page and try again.',
    );
  }
}
