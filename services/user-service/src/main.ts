import '@pelita/kit/instrument'; // first: tracing patches http, express and drivers as they load
import { createLogger, loadConfig, serve } from '@pelita/kit';
import { settingsSchema } from './config';
import { createUserService } from './service';

async function main(): Promise<void> {
  const settings = loadConfig(settingsSchema);
  const logger = createLogger({ name: 'user-service', level: settings.LOG_LEVEL });
  const service = createUserService(settings, logger);
  await service.start();
  await serve(service.app, {
    port: settings.PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    onShutdown: [() => service.stop()],
  });
}

main().catch((err: unknown) => {
  // The logger may not exist yet (bad settings): standard error is the one place left.
  process.stderr.write(`user-service failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
