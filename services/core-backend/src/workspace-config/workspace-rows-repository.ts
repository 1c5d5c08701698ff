/**
 * The reads and the delete the workspace's configuration tables share (integrations, iframes,
 * system prompts, models): every row belongs to one workspace and is only ever reached with
 * that workspace's id, so no id of another workspace's row answers.
 */
import type pg from 'pg';
import { readPage, type Filter } from '../db/page-query';
import type { Paging } from '../paging';

export function workspaceRows<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  spec: {
    table: string;
    /** The columns read (`t.*` when omitted) and what they are read from (`<table> t`). */
    columns?: string;
    from?: string;
    orderBy: string;
  },
) {
  const columns = spec.columns ?? 't.*';
  const from = spec.from ?? `${spec.table} t`;
  return {
    async row(workspaceId: string, id: string): Promise<Row | undefined> {
      const { rows } = await pool.query<Row>(
        `select ${columns} from ${from} where t.id = $1 and t.workspace_id = $2`,
        [id, workspaceId],
      );
      return rows[0];
    },
    /** A page of the workspace's rows; `filters` are further conditions on a value (undefined: none). */
    page(workspaceId: string, paging: Paging, filters: Filter[] = []) {
      const where = ['t.workspace_id = $1'];
      const query = { columns, from, where, values: [workspaceId], filters, orderBy: spec.orderBy };
      return readPage<Row>(pool, query, paging);
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

/** Whether the key is a live key of this workspace (what an iframe or integration answers as). */
export async function isLiveAppKey(
  pool: pg.Pool,
  workspaceId: string,
  appKeyId: string,
): Promise<boolean> {
  const { rows } = await pool.query(
    'select 1 from app_keys where id = $1 and workspace_id = $2 and revoked_at is null',
    [appKeyId, workspaceId],
  );
  return rows.length > 0;
}
