/** Request id (accepted from the caller when sane, else generated) and the per-request access log. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger';
import { redact, redactString } from './redact';

const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths probed every few seconds by Kubernetes and Prometheus: logged only when they fail. */
const QUIET_PATHS = new Set(['/health', '/ready', '/metrics']);

export function requestLogging(logger: Logger): RequestHandler {
  const middleware = pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const offered = req.headers[REQUEST_ID_HEADER];
      const id =
        typeof offered === 'string' && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customAttributeKeys: { reqId: 'request_id' },
    quietReqLogger: true,
    autoLogging: { ignore: (req) => QUIET_PATHS.has(pathOf(req.url)) },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
    // Lean access-log lines: headers are left out (they cost more to serialise and redact than
    // they tell; a handler that needs one logs it, and redaction still applies there).
    serializers: {
      req: (req: SerializedRequest) => ({
        id: req.id,
        method: req.method,
        url: redactString(req.url ?? ''),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: SerializedResponse) => ({ statusCode: res.statusCode }),
      err: redact,
    },
  });
  return function requestLog(req, res, next) {
    middleware(req, res, next);
  };
}

interface SerializedRequest {
  id?: string;
  method?: string;
  url?: string;
  remoteAddress?: string;
}

interface SerializedResponse {
  statusCode?: number;
}

function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}
