/**
 * The insert and update of a workspace's row — `id`, `workspace_id`, `created_by`, `created_at`,
 * `updated_at` and the row's own columns — written from one list of those columns (databases,
 * APIs, integrations, iframes, system prompts, models; folders and topics are only inserted so). The table and column names are the
 * repository's constants, never a request's: only the listed columns are read from what is given.
 */
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/** Who creates a row: the workspace it belongs to and its creator. */
export interface Creator {
  workspaceId: string;
  userId: string;
}

export function rowWrites<Columns extends object>(
  table: string,
  columns: ReadonlyArray<keyof Columns & string>,
) {
  const values = (given: Columns) => columns.map((column) => given[column]);
  return {
    async insert(db: Queryable, id: string, creator: Creator, given: Columns): Promise<void> {
      const refs = columns.map((_column, i) => `$${i + 4}`);
      await db.query(
        `insert into ${table} (id, workspace_id, created_by, ${columns.join(', ')})
         values ($1, $2, $3, ${refs.join(', ')})`,
        [id, creator.workspaceId, creator.userId, ...values(given)],
      );
    },
    /** Writes the columns of the workspace's row; `also`: further assignments of constants. */
    async update(
      db: Queryable,
      id: string,
      workspaceId: string,
      given: Columns,
      also: string[] = [],
    ): Promise<void> {
      const sets = [...columns.map((column, i) => `${column} = $${i + 3}`), 'updated_at = now()'];
      await db.query(
        `update ${table} set ${[...sets, ...also].join(', ')} where id = $1 and workspace_id = $2`,
        [id, workspaceId, ...values(given)],
      );
    },
  };
}

/**
 * Renames and moves an item of a tree (a folder in its parent, a document in its folder): a name
 * given replaces its name, a place given (null: the top) replaces its `placeColumn`.
 */
export async function renameOrMove(
  db: Queryable,
  spec: { table: string; placeColumn: string },
  id: string,
  changes: { name: string | undefined; place: string | null | undefined },
): Promise<void> {
  const { table, placeColumn: place } = spec;
  await db.query(
    `update ${table} set name = coalesce($2, name),
       ${place} = case when $3 then $4::uuid else ${place} end, updated_at = now()
     where id = $1`,
    [id, changes.name ?? null, changes.place !== undefined, changes.place ?? null],
  );
}

/**
 * The columns a change writes: each one `changes` gives (a value, or null where null is a value),
 * the others as `before` holds them. Undefined is "not given".
 */
export function changed<Columns extends object>(
  columns: ReadonlyArray<keyof Columns & string>,
  before: Columns,
  changes: Partial<Columns>,
): Columns {
  const value = (column: keyof Columns) =>
    changes[column] === undefined ? before[column] : changes[column];
  return Object.fromEntries(columns.map((column) => [column, value(column)])) as Columns;
}
