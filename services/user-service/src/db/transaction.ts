/** One PostgreSQL transaction around a piece of work, and the type repositories accept to join one. */
import type { Pool, PoolClient } from 'pg';

/** What a repository runs its SQL on: the pool, or the client of a running transaction. */
export type Db = Pool | PoolClient;

/** Runs `work` in a transaction on one client: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(
  pool: Pool,
  work: (db: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A client whose rollback failed is in an unknown state: destroyed, not returned to the pool.
  let broken: Error | undefined;
  try {
    await client.query('begin');
    try {
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
