/**
 * Listens, and on SIGTERM/SIGINT shuts down gracefully: stop accepting, let in-flight requests
 * finish within a deadline, close the service's pools, flush traces, exit 0.
 */
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { isTracingStarted, takesFastPath } from './fast-path-registry';
import { handlersIdle, markShuttingDown } from './lifecycle';
import type { Logger } from './logger';
import { messageClassesOf } from './request-classes';
import { shutdownTracing } from './tracing';

const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const IDLE_SWEEP_MS = 100;

export interface ServeOptions {
  port: number;
  host?: string;
  logger: Logger;
  /** How long in-flight requests may take to finish once shutdown starts. */
  shutdownTimeoutMs: number;
  /** Closes what the service opened (pools, clients), run after the last request ends. */
  onShutdown?: Array<() => unknown>;
  /** Install SIGTERM/SIGINT handlers that exit the process (off in tests that embed a server). */
  handleSignals?: boolean;
}

export interface RunningServer {
  server: Server;
  /** `http://host:port` the server listens on. */
  url: string;
  /** Drains and closes; resolves when every closer has run. Safe to call more than once. */
  stop: () => Promise<void>;
}

export async function serve(app: Express, options: ServeOptions): Promise<RunningServer> {
  const { logger, shutdownTimeoutMs, onShutdown = [], handleSignals = true } = options;
  const server = createServer(messageClassesOf(app), app);
  // Longer than any client's own idle time-out (Node's and undici's agents: 4-5 s; proxies and
  // load balancers: up to 60 s), so the client always ends an idle connection first. With
  // Node's default of 5 s a client could send its next request just as the server closed the
  // connection, and get ECONNRESET (seen in the OCR engine's tests on a loaded machine).
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  if (isTracingStarted()) bypassIncomingInstrumentation(server);
  server.listen(options.port, options.host ?? '0.0.0.0');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info({ port: address.port }, 'listening');

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= drainAndClose());

  async function drainAndClose(): Promise<void> {
    markShuttingDown(app);
    // close() ends idle connections once; a connection whose last answer ends during the drain
    // would stay open for the keep-alive time-out, so idle ones are swept until closed.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    void closed.then(() => clearInterval(sweep));
    server.closeIdleConnections();
    // Drained: no socket open and no handler running (one may outlive its client's socket).
    const drained = closed.then(() => handlersIdle(app)).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), shutdownTimeoutMs);
    });
    if (!(await Promise.race([drained, deadline]))) {
      logger.warn(
        { timeoutMs: shutdownTimeoutMs },
        'shutdown deadline reached, closing connections',
      );
      server.closeAllConnections();
    }
    clearTimeout(timer);
    for (const close of onShutdown) {
      try {
        await close();
      } catch (err) {
        logger.error({ err }, 'error while closing a dependency during shutdown');
      }
    }
    await shutdownTracing().catch((err: unknown) =>
      logger.error({ err }, 'error while flushing traces during shutdown'),
    );
    logger.info('stopped');
  }

  if (handleSignals) {
    // `on`, not `once`: Ctrl-C signals the whole process group, and a supervisor may signal
    // again; a second signal must not kill the process halfway through draining.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        if (stopping) return;
        logger.info({ signal }, 'shutting down');
        void stop().then(() => process.exit(0));
      });
    }
  }
  return { server, url, stop };
}

/**
 * Requests the kit's fast path serves get their server span from it; the http instrumentation's
 * wrapper of `Server.prototype.emit` would still bind both of their event emitters to the
 * context (it does so even for requests its ignore hook skips), which costs more than the span.
 * So this server emits those requests past the wrapper, and every other event through it.
 */
function bypassIncomingInstrumentation(server: Server): void {
  const instrumented = server.emit.bind(server) as (
    event: string | symbol,
    ...args: unknown[]
  ) => boolean;
  server.emit = function emitRequest(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request' && takesFastPath(args[0] as IncomingMessage)) {
      return EventEmitter.prototype.emit.call(server, event, ...args);
    }
    return instrumented(event, ...args);
  } as Server['emit'];
}
