/**
 * The hot path of a service: requests for a route with a literal path (`POST /proxy`, `POST
 * /execute`) and a plain JSON body skip express's router and body parser, and run the same
 * middleware and handler functions through a small chain of their own.
 *
 * Why: on a small request express's router (a regular expression and a `next` hop per layer,
 * mount-path trimming, parameter processing) and body-parser (content-type parsing, raw-body,
 * async resources) cost several times what node:http itself does (figures in the kit's
 * README). Everything else falls back to express, untouched: parameterised paths, `HEAD`, a
 * trailing slash, other body types, encodings and charsets, a declared body over the limit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import { isTracingStarted, registerFastPath } from './fast-path-registry';
import { keepRawBody } from './raw-body';
import { hasAppPrototype } from './request-classes';

export interface FastRoute {
  method: string;
  path: string;
  /** Middleware and the route handler, in the order express would run them. */
  handlers: RequestHandler[];
  /** Error handlers, in order (the route's own shape first, then the service's). */
  errorHandlers: ErrorRequestHandler[];
}

export interface FastPathOptions {
  /** Run before every request, as the app's first `app.use` middleware would be. */
  middleware: RequestHandler[];
  routes: FastRoute[];
  /** Largest JSON body accepted, in bytes; bodies are left to express when unknown. */
  bodyLimitBytes: number | undefined;
}

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: unknown) => void;

/** Replaces `app.handle` so literal routes take the short path; express serves everything else. */
export function installFastPath(app: Express, options: FastPathOptions): void {
  const byKey = new Map<
    string,
    { route: FastRoute; bare: RequestHandler[]; json: RequestHandler[] }
  >();
  const jsonBody =
    options.bodyLimitBytes === undefined ? [] : [readJsonBody(options.bodyLimitBytes)];
  for (const route of options.routes) {
    byKey.set(`${route.method} ${route.path}`, {
      route,
      bare: [...options.middleware, ...route.handlers],
      json: [...options.middleware, ...jsonBody, ...route.handlers],
    });
  }
  const expressHandle = (app as unknown as { handle: Handle }).handle.bind(app);
  const routeOf = (req: IncomingMessage) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const entry = byKey.get(`${req.method ?? ''} ${query === -1 ? url : url.slice(0, query)}`);
    return entry && bodyKind(req, options.bodyLimitBytes) !== 'other' ? entry : undefined;
  };
  registerFastPath((req) => routeOf(req) !== undefined);
  const appWithHandle = app as unknown as { handle: Handle };
  appWithHandle.handle = function fastHandle(req, res, callback) {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const entry = byKey.get(`${req.method ?? ''} ${path}`);
    const kind = entry ? bodyKind(req, options.bodyLimitBytes) : 'other';
    if (!entry || kind === 'other' || callback !== undefined) {
      expressHandle(req, res, callback);
      return;
    }
    const request = req as Request;
    const response = res as Response;
    request.res = response;
    response.req = request;
    // A server of the kit (serve) creates them with express's methods already on board.
    if (!hasAppPrototype(app, req)) {
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
    }
    response.locals = Object.create(null) as Record<string, unknown>;
    request.originalUrl = url;
    request.baseUrl = '';
    request.params = {};
    // What express's router sets: the metrics middleware reads the matched template from it.
    request.route = { path: entry.route.path };
    const chain = kind === 'json' ? entry.json : entry.bare;
    // Probes and scrapes are not traced (as the http instrumentation is told in tracing.ts).
    if (!isTracingStarted() || UNTRACED.test(path)) {
      runChain(request, response, chain, entry.route);
      return;
    }
    const active = startServerSpan(request, response, path, entry.route.path);
    context.with(active, () => runChain(request, response, chain, entry.route));
  };
}

const tracer = () => trace.getTracer('@pelita/kit');
const UNTRACED = /^\/(health|ready|metrics)\b/;

/**
 * The server span of a fast-path request, in place of the http instrumentation's (which skips
 * these requests): continues the caller's `traceparent`, so the configured sampler decides as it
 * would there, and ends when the response closes. Returns the context the chain runs in.
 */
function startServerSpan(req: Request, res: Response, path: string, route: string) {
  const method = req.method;
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer().startSpan(
    `${method} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'http.route': route,
        'url.path': path,
        'url.scheme': 'http',
        'server.address': req.headers.host ?? '',
        'network.peer.address': req.socket.remoteAddress ?? '',
        'user_agent.original': req.headers['user-agent'] ?? '',
      },
    },
    parent,
  );
  // An unsampled span records nothing: ending it would do nothing either.
  if (!span.isRecording()) return trace.setSpan(parent, span);
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  return trace.setSpan(parent, span);
}

type BodyKind = 'none' | 'json' | 'other';

/**
 * 'none' without a body (express.json leaves `req.body` undefined), 'json' for a plain UTF-8 JSON
 * body not declared over the limit, 'other' for anything express should judge.
 */
function bodyKind(req: IncomingMessage, limit: number | undefined): BodyKind {
  const { headers } = req;
  const length = headers['content-length'];
  if (headers['transfer-encoding'] === undefined && length === undefined) return 'none';
  if (limit === undefined || !isPlainJson(headers['content-type'])) return 'other';
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return 'other';
  if (length !== undefined && !(Number(length) <= limit)) return 'other';
  return 'json';
}

const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

function isPlainJson(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_CONTENT_TYPE.test(contentType);
}

/**
 * Runs handlers in order the way express does: `next()` goes on, `next(err)`, a throw or a
 * rejected promise jumps to the error handlers, each of which may pass the error on.
 */
function runChain(req: Request, res: Response, handlers: RequestHandler[], route: FastRoute): void {
  let index = 0;
  let errorIndex = 0;
  const fail = (err: unknown): void => {
    const handler = route.errorHandlers[errorIndex++];
    if (!handler) {
      // What express's final handler does once every error handler passed the error on.
      if (!res.headersSent) res.statusCode = 500;
      res.end();
      return;
    }
    try {
      handler(err, req, res, (passed?: unknown) => fail(passed ?? err));
    } catch (thrown) {
      fail(thrown);
    }
  };
  const next = (err?: unknown): void => {
    if (err !== undefined && err !== 'route' && err !== 'router') return fail(err);
    const handler = handlers[index++];
    if (!handler) return;
    try {
      const result: unknown = handler(req, res, next);
      if (result instanceof Promise) result.catch(fail);
    } catch (thrown) {
      fail(thrown);
    }
  };
  next();
}

/**
 * express.json() for the one case the fast path takes: UTF-8 JSON, strict (an object or an
 * array), `{}` for an empty body, 413 past the limit, 400 when it does not parse.
 */
function readJsonBody(limit: number): RequestHandler {
  return function jsonBody(req, _res, proceed) {
    // The body's events come from the socket, outside the request's trace context: continue in it.
    const next = context.bind(context.active(), proceed);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.once('error', (err) => next(clientError(400, 'request.aborted', err.message)));
    req.once('end', () => {
      if (tooLarge) {
        return next(clientError(413, 'entity.too.large', 'request entity too large'));
      }
      const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      keepRawBody(req, raw);
      const text = raw.toString('utf8').trim();
      if (text === '') {
        req.body = {};
        return next();
      }
      if (text[0] !== '{' && text[0] !== '[') {
        return next(
          clientError(400, 'entity.parse.failed', 'Unexpected token: not a JSON object or array'),
        );
      }
      try {
        req.body = JSON.parse(text) as unknown;
      } catch (err) {
        return next(clientError(400, 'entity.parse.failed', (err as Error).message));
      }
      next();
    });
  };
}

/** The error shape body-parser throws, which the kit's error handler answers as a 4xx. */
function clientError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** body-parser's limit syntax (`100kb`, `1mb`, a number of bytes); undefined when unreadable. */
export function parseByteLimit(limit: string | number): number | undefined {
  if (typeof limit === 'number') return Number.isFinite(limit) ? limit : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!match) return undefined;
  return Math.floor(Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1));
}
