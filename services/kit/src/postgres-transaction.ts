/**
 * One PostgreSQL transaction around a piece of work, the type repositories accept to join one, and
 * a pool that survives losing an idle connection.
 */
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';

/** What a repository runs its SQL on: the pool, or the client of a running transaction. */
export type Db = Pool | PoolClient;

/**
 * Runs `work` in a transaction on one client: committed when it resolves, rolled back when it
 * throws, and `work`'s error is the one thrown. A client in an unknown state — `begin` or the
 * rollback failed, or its connection was lost — is discarded, not returned to the pool.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A lent client has no error listener of the pool's: a connection lost while `work` awaits
  // something else would be an unhandled 'error' event and end the process.
  const lost = (err: Error) => (broken ??= err);
  client.on('error', lost);
  try {
    await client.query('begin').catch((err: unknown) => {
      broken ??= asError(err);
      throw err;
    });
    try {
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch((rollbackError: unknown) => {
        broken ??= asError(rollbackError);
      });
      throw err;
    }
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/**
 * Logs the connections `pool` loses while they are idle (a server restart, a terminated backend,
 * a dropped network link) and returns the pool. The pool discards such a client and reports it
 * with an 'error' event; with no listener, Node ends the process on the first one.
 */
export function loggingIdleErrors(pool: Pool, logger: Logger): Pool {
  // The message and code only: pg hangs the whole client, connection settings included, on it.
  pool.on('error', (err: Error & { code?: string }) =>
    logger.warn({ err: err.message, code: err.code }, 'an idle PostgreSQL connection was lost'),
  );
  return pool;
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));
