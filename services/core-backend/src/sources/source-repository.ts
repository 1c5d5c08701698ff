/**
 * The SQL databases and APIs share: a table whose rows have `id`, `workspace_id`, `created_by`,
 * `created_at`, `updated_at` and the source's own columns, written from one list of them.
 * Nothing here asks the access lists: `source-records.ts` does before it reads a row.
 */
import type pg from 'pg';

/** Who creates a row: the workspace it belongs to and its creator. */
export interface Creator {
  workspaceId: string;
  userId: string;
}

export function sourceTable<Row extends pg.QueryResultRow, Columns extends object>(
  pool: pg.Pool,
  table: 'apis' | 'databases',
  columns: ReadonlyArray<keyof Columns & string>,
) {
  const values = (given: Columns) => columns.map((column) => given[column]);
  return {
    async row(id: string): Promise<Row | undefined> {
      const { rows } = await pool.query<Row>(`select * from ${table} where id = $1`, [id]);
      return rows[0];
    },
    /** Inserts in the creating transaction (`client`), where the creator is put on the list. */
    async insert(client: pg.PoolClient, id: string, creator: Creator, given: Columns) {
      const refs = columns.map((_column, i) => `$${i + 4}`);
      await client.query(
        `insert into ${table} (id, workspace_id, created_by, ${columns.join(', ')})
         values ($1, $2, $3, ${refs.join(', ')})`,
        [id, creator.workspaceId, creator.userId, ...values(given)],
      );
    },
    async update(id: string, given: Columns) {
      const sets = columns.map((column, i) => `${column} = $${i + 2}`);
      await pool.query(`update ${table} set ${sets.join(', ')}, updated_at = now() where id = $1`, [
        id,
        ...values(given),
      ]);
    },
    async delete(id: string) {
      await pool.query(`delete from ${table} where id = $1`, [id]);
    },
  };
}

export type SourceTable<Row extends pg.QueryResultRow, Columns extends object> = ReturnType<
  typeof sourceTable<Row, Columns>
>;
