import '@pelita/kit/instrument';
import { createLogger, serve } from '@pelita/kit';
import { createApp } from './app';
import { loadSettings } from './config';

const settings = loadSettings();
const logger = createLogger({ name: 'db-proxy', level: settings.LOG_LEVEL });
const { app, close } = createApp({ settings, logger });

void serve(app, {
  port: settings.PORT,
  logger,
  shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
  onShutdown: [close],
});
