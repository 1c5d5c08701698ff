/**
 * The SQL databases and APIs share: a table whose rows have `id`, `workspace_id`, `created_by`,
 * `created_at`, `updated_at` and the source's own columns, written from one list of them.
 * A row is only read for a member, through its access list (there is no read without one).
 */
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { rowWrites, type Creator } from '../db/row-writes';
import type { Membership } from '../workspaces/workspaces';

export function sourceTable<Row extends pg.QueryResultRow, Columns extends object>(
  pool: pg.Pool,
  access: Pick<AccessLists, 'visibleSql'>,
  source: { table: 'apis'; type: 'api' } | { table: 'databases'; type: 'database' },
  columns: ReadonlyArray<keyof Columns & string>,
) {
  const { table } = source;
  const writes = rowWrites<Columns>(table, columns);
  return {
    /** The row, when it is in the member's workspace and on their access list. */
    async row(member: Membership, id: string): Promise<Row | undefined> {
      const params: unknown[] = [id, member.workspaceId];
      const visible = access.visibleSql(member, source.type, 's', params);
      const { rows } = await pool.query<Row>(
        `select s.* from ${table} s where s.id = $1 and s.workspace_id = $2 and ${visible}`,
        params,
      );
      return rows[0];
    },
    /** Inserts in the creating transaction (`client`), where the creator is put on the list. */
    insert: (client: pg.PoolClient, id: string, creator: Creator, given: Columns) =>
      writes.insert(client, id, creator, given),
    update: (id: string, workspaceId: string, given: Columns) =>
      writes.update(pool, id, workspaceId, given),
    async delete(id: string) {
      await pool.query(`delete from ${table} where id = $1`, [id]);
    },
  };
}

export type SourceTable<Row extends pg.QueryResultRow, Columns extends object> = ReturnType<
  typeof sourceTable<Row, Columns>
>;
