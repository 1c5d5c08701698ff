/**
 * A service's process, the same for every service: settings from the environment (and the
 * secret store, when one is configured), a logger, the service, listen, start-up work; SIGTERM
 * drains and stops it. `main.ts` is one call.
 */
import type { Express } from 'express';
import type { z } from 'zod';
import type { BaseSettings } from './config';
import { errorMessage } from './error-message';
import { isShuttingDown, markStarting } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { redactString } from './redact';
import { openSettingsSource } from './secret-store/settings-source';
import { serve, type RunningServer } from './serve';

/** What `src/service.ts` of every service returns: built without I/O, then started and stopped. */
export interface Service {
  app: Express;
  /**
   * One-time work and background jobs (migrations, a first sync, timers). Runs once the port
   * is open, so `/health` answers meanwhile; `/ready` says `starting` until it resolves.
   */
  start(): Promise<void>;
  /** Stops background work and closes what the service opened; runs after the last request. */
  stop(): Promise<void>;
}

/** What a service may use beyond its settings at start. */
export interface ServiceContext<Settings> {
  /**
   * The settings as of the last good read of the secret store (the start's without one): for
   * settings a service can take at run time, such as a model server's key.
   */
  latestSettings: () => Settings;
}

export interface ServiceDefinition<Schema extends z.ZodType<BaseSettings>> {
  name: string;
  settings: Schema;
  create: (
    settings: z.output<Schema>,
    logger: Logger,
    context: ServiceContext<z.output<Schema>>,
  ) => Service;
}

/** Runs a service as the process: `runService({ name, settings: settingsSchema, create })`. */
export function runService<Schema extends z.ZodType<BaseSettings>>(
  definition: ServiceDefinition<Schema>,
): void {
  runMain(definition.name, async () => {
    // The environment, and the secret store when one is configured (secret-store/).
    const source = await openSettingsSource(definition.settings);
    const { settings } = source;
    const logger = createLogger({ name: definition.name, level: settings.LOG_LEVEL });
    const service = definition.create(settings, logger, {
      latestSettings: () => source.latest(),
    });
    markStarting(service.app, true);
    const server = await serve(service.app, {
      port: settings.PORT,
      logger,
      shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
      onShutdown: [() => service.stop(), () => source.stop()],
    });
    source.startRefresh(logger);
    try {
      await service.start();
    } catch (err) {
      // A SIGTERM during start-up closes what start was using: that is a stop, not a failure.
      if (isShuttingDown(service.app)) return;
      await server.stop();
      throw err;
    }
    markStarting(service.app, false);
    logger.info('started');
  });
}

export interface InProcessOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  shutdownTimeoutMs?: number;
  /** false leaves `start()` to the caller (tests of what happens before it). */
  start?: boolean;
}

/**
 * Runs a service inside this process, as tests and tools do: on 127.0.0.1, without signal
 * handlers, started; `stop()` of the answer drains it and stops the service.
 */
export async function serveInProcess(
  service: Service,
  logger: Logger,
  options: InProcessOptions = {},
): Promise<RunningServer> {
  const running = await serve(service.app, {
    port: options.port ?? 0,
    host: '127.0.0.1',
    logger,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 2000,
    handleSignals: false,
    onShutdown: [() => service.stop()],
  });
  if (options.start !== false) await service.start();
  return running;
}

/** Runs a process's `main`; a failure is written to standard error and exits with 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    // The logger may not exist yet (bad settings): standard error is the one place left.
    process.stderr.write(`${name} failed to start: ${redactString(errorMessage(err))}\n`);
    process.exit(1);
  });
}
