/** What repositories run their SQL on: the pool, or one client inside a transaction. */
import type { Pool } from 'pg';

export type Queryable = Pick<Pool, 'query'>;

/**
 * Runs a statement that should reach one row (a guarded update, a lookup by key) and says whether
 * it did: a guard that lost a race, or a row that is not there, answers false.
 */
export async function reachesOneRow(
  db: Queryable,
  text: string,
  values: unknown[],
): Promise<boolean> {
  const { rowCount } = await db.query(text, values);
  return rowCount === 1;
}
