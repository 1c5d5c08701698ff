// Tracing first: its instrumentations patch http, undici and ioredis as they load.
import '@pelita/kit/instrument';
import { createLogger, loadConfig, serve } from '@pelita/kit';
import { settingsSchema } from './config';
import { createPolicySyncService } from './service';

async function main(): Promise<void> {
  const settings = loadConfig(settingsSchema);
  const logger = createLogger({ name: 'policy-sync', level: settings.LOG_LEVEL });
  const service = createPolicySyncService(settings, logger);
  await serve(service.app, {
    port: settings.port,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    onShutdown: [() => service.stop()],
  });
  // After listening: /health answers while the start-up sync waits for slow dependencies.
  await service.start();
}

main().catch((err: unknown) => {
  process.stderr.write(
    `policy-sync failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
