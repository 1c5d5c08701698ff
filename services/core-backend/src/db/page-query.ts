/**
 * One page of a query's rows and how many there are in all: the count and the page are the one
 * query, read twice. Every paged listing of the core backend reads through it.
 */
import type pg from 'pg';
import type { Paging } from '@pelita/kit';

/** A condition on a value, given the value's `$n`; an undefined value is no condition. */
export type Filter = [condition: (ref: string) => string, value: unknown];

export interface PageQuery {
  columns: string;
  /** Tables and their aliases (`documents d`, or a join). */
  from: string;
  /** Conditions, all of which hold; they refer to `values` by position. */
  where: string[];
  values: unknown[];
  filters?: Filter[];
  orderBy: string;
}

export async function readPage<Row extends pg.QueryResultRow>(
  db: Pick<pg.Pool, 'query'>,
  query: PageQuery,
  paging: Paging,
): Promise<{ rows: Row[]; total: number }> {
  const values = [...query.values];
  const conditions = [...query.where];
  for (const [condition, value] of query.filters ?? []) {
    if (value === undefined) continue;
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  }
  const from = `from ${query.from} where ${conditions.join(' and ')}`;
  const { rows: count } = await db.query<{ n: number }>(
    `select count(*)::int as n ${from}`,
    values,
  );
  values.push(paging.limit, (paging.page - 1) * paging.limit);
  const { rows } = await db.query<Row>(
    `select ${query.columns} ${from} order by ${query.orderBy}
     limit $${values.length - 1} offset $${values.length}`,
    values,
  );
  return { rows, total: count[0]?.n ?? 0 };
}
