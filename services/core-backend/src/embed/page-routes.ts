/**
 * The web pages: `/chat`, where a user logs in, picks a workspace, adds documents and chats, and
 * `/embed/:iframeId`, the chat widget other sites embed in an iframe. Plain HTML with scripts
 * and styles from `web/` (served under `/assets`), no build step.
 *
 * Both pages are served with a strict Content-Security-Policy (own scripts only, no inline
 * code). The chat page may not be framed at all; the widget only by its allowed origins
 * (`frame-ancestors`): a browser refuses to show it inside any other site.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineRoute, toHttpError, type RouteDefinition } from '@pelita/kit';
import type { Response } from 'express';
import { z } from 'zod';
import type { Iframes } from '../workspace-config/iframes';

/** `web/` beside `src/` and `dist/`. */
export const WEB_DIR = join(__dirname, '..', '..', 'web');

const html = { description: 'An HTML page', contentType: 'text/html', schema: z.string() };

/** The pages' own rules; `frame-ancestors` is added per page. */
const CONTENT_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
];

function sendPage(res: Response, status: number, body: string, frameAncestors: string): void {
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': [...CONTENT_POLICY, `frame-ancestors ${frameAncestors}`].join(
        '; ',
      ),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    .send(body);
}

/** JSON for an HTML attribute value: every character that could end or break it escaped. */
const attributeJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[&"'<>]/g,
    (c) => ({ '&': '&amp;', '"': '&quot;', "'": '&#39;', '<': '&lt;', '>': '&gt;' })[c]!,
  );

export function pageRoutes(iframes: Iframes): RouteDefinition[] {
  const templates = new Map<string, string>();
  const template = (name: string) => {
    let text = templates.get(name);
    if (text === undefined) {
      text = readFileSync(join(WEB_DIR, name), 'utf8');
      templates.set(name, text);
    }
    return text;
  };
  const tags = ['pages'];

  return [
    defineRoute({
      method: 'get',
      path: '/',
      summary: 'The chat page is where a browser starts',
      tags,
      public: true,
      responses: { 302: { description: 'To /chat' } },
      handler: (_input, _req, res) => {
        res.redirect(302, '/chat');
        return Promise.resolve(undefined);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/chat',
      summary: 'The chat page: log in, pick a workspace, add documents, chat',
      tags,
      public: true,
      responses: { 200: html },
      handler: (_input, _req, res) => {
        sendPage(res, 200, template('chat.html'), "'none'");
        return Promise.resolve(undefined);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/embed/:iframeId',
      summary: 'The chat widget, for an iframe on one of its allowed origins',
      tags,
      public: true,
      request: { params: z.object({ iframeId: z.uuid() }) },
      responses: { 200: html, 404: html },
      handler: async ({ params }, _req, res) => {
        try {
          const widget = await iframes.widget(params.iframeId);
          const config = {
            id: widget.id,
            workspace_name: widget.workspaceName,
            theme: widget.theme,
          };
          const page = template('embed.html').replace('{{config}}', () => attributeJson(config));
          sendPage(res, 200, page, widget.allowedOrigins.join(' '));
        } catch (err) {
          const failure = toHttpError(err);
          if (failure.status !== 404) throw err;
          // A static notice, safe in any frame: the host page shows it instead of a broken frame.
          sendPage(res, 404, template('embed-missing.html'), '*');
        }
      },
    }),
  ];
}
