/** Builds the HTTP proxy's express app from its dependencies; no listening, no environment reads. */
import { createService, type Logger, type Metrics, requireServiceToken } from '@pelita/kit';
import type { Express } from 'express';
import type { Settings } from './config';
import { createForwarder } from './forward/forward';
import type { UpstreamClient } from './forward/upstream-client';
import { createUpstreamMetrics } from './forward/upstream-metrics';
import { proxyRoute } from './routes/proxy';

export interface AppDeps {
  logger: Logger;
  settings: Settings;
  upstream: UpstreamClient;
  metrics: Metrics;
}

export function createApp({ logger, settings, upstream, metrics }: AppDeps): Express {
  const forwarder = createForwarder({
    upstream,
    timeoutMs: settings.OUTBOUND_TIMEOUT_MS,
    metrics: createUpstreamMetrics(metrics.registry),
  });
  const token = settings.PROXY_SERVICE_TOKEN;
  return createService({
    name: 'http-proxy',
    description:
      'Forwards one described HTTP call (basic, bearer or JWT-login auth) to an external API',
    logger,
    metrics,
    bodyLimit: settings.BODY_LIMIT,
    // Checked before the body is validated: a caller without the token learns nothing more.
    ...(token === undefined ? {} : { guard: requireServiceToken(token) }),
    routes: [proxyRoute({ forwarder })],
  });
}
