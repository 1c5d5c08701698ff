/** What repositories run their SQL on: the pool, or one client inside a transaction. */
import type { Pool, PoolClient } from 'pg';

export type Queryable = Pick<Pool, 'query'>;

/** Runs `work` in one transaction: a change and its activity entry are written together or not at all. */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
