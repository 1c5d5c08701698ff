/** Prometheus metrics: default process metrics plus the request-duration histogram. */
import type { RequestHandler, Request } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  /** Services register their own counters here so `/metrics` shows them. */
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status_code'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP requests served, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return { registry, requestDuration };
}

export function requestMetrics({ requestDuration }: Metrics): RequestHandler {
  return function recordRequestDuration(req, res, next) {
    const stopTimer = requestDuration.startTimer();
    res.once('finish', () => {
      stopTimer({ method: req.method, route: routeTemplate(req), status_code: res.statusCode });
    });
    next();
  };
}

/** The matched route's template (`/users/:id`), never the raw path: labels must stay few. */
function routeTemplate(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (!route || typeof route.path !== 'string') return 'unmatched';
  return `${req.baseUrl}${route.path}`;
}
