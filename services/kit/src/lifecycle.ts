/**
 * Per-app lifecycle state: whether start-up work is still under way, whether shutdown has
 * begun, and how many route handlers are still running. A handler can outlive its connection (the client went away), so shutdown waits for
 * handlers, not only sockets, before it closes the pools they use.
 */
import type { Express } from 'express';

interface Lifecycle {
  starting: boolean;
  shuttingDown: boolean;
  running: number;
  idleWaiters: Array<() => void>;
}

const KEY = 'pelitaLifecycle';

function lifecycle(app: Express): Lifecycle {
  const locals = app.locals as Record<string, Lifecycle | undefined>;
  return (locals[KEY] ??= { starting: false, shuttingDown: false, running: 0, idleWaiters: [] });
}

export function isStarting(app: Express): boolean {
  return lifecycle(app).starting;
}

/** `/ready` answers 503 while a service's start-up work (migrations, first sync) runs. */
export function markStarting(app: Express, starting: boolean): void {
  lifecycle(app).starting = starting;
}

export function isShuttingDown(app: Express): boolean {
  return lifecycle(app).shuttingDown;
}

/** Called by `serve` on SIGTERM: `/ready` turns 503 and kept-alive connections are closed. */
export function markShuttingDown(app: Express): void {
  lifecycle(app).shuttingDown = true;
}

/** Runs a route handler, counted as in flight until it settles. */
export async function trackHandler<T>(app: Express, handler: () => T | Promise<T>): Promise<T> {
  const state = lifecycle(app);
  state.running += 1;
  try {
    return await handler();
  } finally {
    state.running -= 1;
    if (state.running === 0) for (const wake of state.idleWaiters.splice(0)) wake();
  }
}

/** Resolves once no route handler is running. */
export function handlersIdle(app: Express): Promise<void> {
  const state = lifecycle(app);
  if (state.running === 0) return Promise.resolve();
  return new Promise((resolve) => state.idleWaiters.push(resolve));
}
