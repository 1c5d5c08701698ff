/** What repositories run their SQL on: the pool, or one client inside a transaction. */
import type { Pool } from 'pg';

export type Queryable = Pick<Pool, 'query'>;
