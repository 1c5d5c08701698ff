/**
 * Errors that say a dependency — a database, the cache, another service — could not be reached or
 * dropped the connection, as opposed to a bad request or a bug: the kit answers them 503, so a
 * client or load balancer knows to try again rather than read an internal error.
 */

/** Node's socket error codes for a peer that cannot be reached. */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
]);

/** Node's (and mysql2's) codes for a connection lost midway. */
export const CONNECTION_LOST_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'PROTOCOL_CONNECTION_LOST',
]);

/** pg-pool's messages for a connection it gave up waiting for (queued, or being opened). */
export const PG_CONNECT_TIMEOUTS: ReadonlySet<string> = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
]);

/** node-postgres and ioredis messages for a connection that is gone. */
const CONNECTION_GONE_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection is closed.',
]);

/**
 * True when `err`, or an error in its `cause` chain (fetch wraps the socket's error), says a
 * dependency is unreachable or its connection was lost.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  let current: unknown = err;
  // Not `instanceof Error`: node's own errors may come from another realm (jest's tests run in one).
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, name, cause } = current as {
      code?: unknown;
      message?: unknown;
      name?: unknown;
      cause?: unknown;
    };
    if (
      typeof code === 'string' &&
      (UNREACHABLE_CODES.has(code) || CONNECTION_LOST_CODES.has(code))
    ) {
      return true;
    }
    if (typeof message === 'string') {
      if (PG_CONNECT_TIMEOUTS.has(message) || CONNECTION_GONE_MESSAGES.has(message)) return true;
    }
    // ioredis, once its per-command retries are spent while the server is away.
    if (name === 'MaxRetriesPerRequestError') return true;
    current = cause;
  }
  return false;
}
