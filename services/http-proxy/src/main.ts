// Tracing first: its instrumentations patch http and express as they load.
import '@pelita/kit/instrument';
import { createLogger, loadConfig, serve } from '@pelita/kit';
import { createApp } from './app';
import { settingsSchema } from './config';
import { createUpstreamClient } from './forward/upstream-client';

async function main(): Promise<void> {
  const settings = loadConfig(settingsSchema);
  const logger = createLogger({ name: 'http-proxy', level: settings.LOG_LEVEL });
  const upstream = createUpstreamClient({
    allowedTargets: settings.ALLOWED_TARGETS,
    maxRedirects: settings.MAX_REDIRECTS,
    maxResponseBytes: settings.MAX_RESPONSE_BYTES,
  });
  const app = createApp({ logger, settings, upstream });
  await serve(app, {
    port: settings.PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    onShutdown: [() => upstream.close()],
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `http-proxy failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
