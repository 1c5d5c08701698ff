/**
 * Request id (accepted from the caller when sane, else generated) and the per-request access log:
 * one line per request, written when the answer is done. Handlers add fields to that line with
 * `addToAccessLog` instead of writing a second line of their own.
 *
 * Written by hand rather than with pino-http: on a small request pino-http's per-request child
 * logger, wrapped serialisers and listeners cost more than the rest of the pipeline together
 * (profile in the kit's README). The child logger behind `req.log` is made only when a
 * handler uses it.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { context } from '@opentelemetry/api';
import type { Request, RequestHandler } from 'express';
import type { Logger } from './logger';

const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths probed every few seconds by Kubernetes and Prometheus: logged only when they fail. */
const QUIET_PATHS = new Set(['/health', '/ready', '/metrics']);

const EXTRA_FIELDS = Symbol('pelita.accessLogFields');

type AnnotatedResponse = ServerResponse & { [EXTRA_FIELDS]?: Record<string, unknown> };

/**
 * Adds fields to the request's access-log line (merged at the top level; the logger's redaction
 * applies to them like to any other field).
 */
export function addToAccessLog(res: ServerResponse, fields: Record<string, unknown>): void {
  const annotated = res as AnnotatedResponse;
  annotated[EXTRA_FIELDS] = { ...annotated[EXTRA_FIELDS], ...fields };
}

const SERVICE_LOGGER = Symbol('pelita.serviceLogger');
const REQUEST_LOGGER = Symbol('pelita.requestLogger');

type LoggedRequest = Request & {
  id: string;
  [SERVICE_LOGGER]?: Logger;
  [REQUEST_LOGGER]?: Logger;
};

/**
 * Gives the app's requests `req.log`: the service's logger with the request's `request_id`, made
 * on first use. One accessor on the app's request prototype rather than one per request: an
 * accessor defined on each request gives each its own hidden class, which V8 keeps in old space
 * — with the request and response its closures hold — until the next full collection. That made
 * every request outlive the young-generation collections (12 ms scavenges instead of 1 ms, a
 * third of a small request's CPU; issue 17, the kit's README).
 */
export function defineRequestLog(requestPrototype: object): void {
  Object.defineProperty(requestPrototype, 'log', {
    configurable: true,
    get(this: LoggedRequest): Logger {
      const logger = this[SERVICE_LOGGER];
      if (!logger)
        throw new Error('req.log is set by the access-log middleware, which has not run');
      return (this[REQUEST_LOGGER] ??= logger.child({ request_id: this.id }));
    },
    set(this: LoggedRequest, value: Logger) {
      this[REQUEST_LOGGER] = value;
    },
  });
}

export function requestLogging(logger: Logger): RequestHandler {
  return function requestLog(req, res, next) {
    const started = performance.now();
    const offered = req.headers[REQUEST_ID_HEADER];
    const id =
      typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.setHeader(REQUEST_ID_HEADER, id);
    const logged = req as LoggedRequest;
    logged.id = id;
    logged[SERVICE_LOGGER] = logger;
    // 'close' comes after 'finish' for a completed answer, and alone for an abandoned one; it is
    // emitted outside the request's trace context, so the line is written back inside it.
    res.once(
      'close',
      context.bind(context.active(), () => {
        const status = res.statusCode;
        const completed = res.writableFinished;
        if (completed && status < 400 && QUIET_PATHS.has(pathOf(req.originalUrl))) return;
        // A caller hanging up is its own choice: 'request aborted' at info unless an error status was set.
        const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
        const line = {
          request_id: id,
          req: {
            id,
            method: req.method,
            url: req.originalUrl,
            remoteAddress: req.socket.remoteAddress,
          },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
          ...(res as AnnotatedResponse)[EXTRA_FIELDS],
        };
        logger[level](line, completed ? 'request completed' : 'request aborted');
      }),
    );
    next();
  };
}

function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}
