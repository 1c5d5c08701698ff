/** Puts the HTTP proxy together from its settings: the upstream client and the app. */
import { createMetrics, type Logger, type Service } from '@pelita/kit';
import { createApp } from './app';
import type { Settings } from './config';
import { createUpstreamClient, type UpstreamClient } from './forward/upstream-client';

export interface HttpProxyOptions {
  /** Replaces the upstream client built from the settings (tests that redirect every call). */
  upstream?: UpstreamClient;
}

export function createHttpProxyService(
  settings: Settings,
  logger: Logger,
  options: HttpProxyOptions = {},
): Service {
  const upstream =
    options.upstream ??
    createUpstreamClient({
      allowedTargets: settings.ALLOWED_TARGETS,
      maxRedirects: settings.MAX_REDIRECTS,
      maxResponseBytes: settings.MAX_RESPONSE_BYTES,
    });
  const app = createApp({ logger, settings, upstream, metrics: createMetrics() });
  return {
    app,
    start: () => Promise.resolve(),
    stop: () => {
      upstream.close();
      return Promise.resolve();
    },
  };
}
