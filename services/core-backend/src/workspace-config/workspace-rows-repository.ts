/**
 * The reads and the delete the workspace's configuration tables share (integrations, iframes,
 * system prompts, models): every row belongs to one workspace and is only ever reached with
 * that workspace's id, so no id of another workspace's row answers.
 */
import type pg from 'pg';
import type { Paging } from '../paging';

export function workspaceRows<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  spec: {
    table: string;
    /** The select the rows are read with (`select * from <table> t` when omitted); alias `t`. */
    select?: string;
    orderBy: string;
  },
) {
  const select = spec.select ?? `select * from ${spec.table} t`;
  return {
    async row(workspaceId: string, id: string): Promise<Row | undefined> {
      const { rows } = await pool.query<Row>(`${select} where t.id = $1 and t.workspace_id = $2`, [
        id,
        workspaceId,
      ]);
      return rows[0];
    },
    /** A page of the workspace's rows; `filters` are further conditions on a value (undefined: none). */
    async page(
      workspaceId: string,
      paging: Paging,
      filters: Array<[condition: (ref: string) => string, value: unknown]> = [],
    ) {
      const values: unknown[] = [workspaceId];
      const conditions = ['t.workspace_id = $1'];
      for (const [condition, value] of filters) {
        if (value === undefined) continue;
        values.push(value);
        conditions.push(condition(`$${values.length}`));
      }
      const where = conditions.join(' and ');
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from ${spec.table} t where ${where}`,
        values,
      );
      values.push(paging.limit, (paging.page - 1) * paging.limit);
      const { rows } = await pool.query<Row>(
        `${select} where ${where} order by ${spec.orderBy}
         limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    /** Whether there was such a row to delete. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        `delete from ${spec.table} where id = $1 and workspace_id = $2`,
        [id, workspaceId],
      );
      return Boolean(rowCount);
    },
  };
}
