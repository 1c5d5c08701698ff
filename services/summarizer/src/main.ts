// Tracing first: its instrumentations patch http, express and fetch as they load.
import '@pelita/kit/instrument';
import { createLogger, loadConfig, serve } from '@pelita/kit';
import { createApp } from './app';
import { settingsSchema } from './config';
import { createDependencies } from './dependencies';
import { probeModelContext } from './model-probe';

async function main(): Promise<void> {
  const settings = loadConfig(settingsSchema);
  const logger = createLogger({ name: 'summarizer', level: settings.LOG_LEVEL });
  const dependencies = createDependencies(settings, logger);
  const app = createApp({ logger, settings, ...dependencies });
  await serve(app, {
    port: settings.PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
  });
  // Only logged: a model server that is down at start-up must not keep the service down.
  await probeModelContext(dependencies.client, logger, settings.UPSTREAM_CHECK_TIMEOUT_MS);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `summarizer failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
