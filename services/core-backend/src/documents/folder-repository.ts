/** The SQL of document folders: a tree per workspace. */
import type pg from 'pg';
import type { Listing } from '../access/access-lists';

export interface FolderRecord {
  id: string;
  workspace_id: string;
  parent_id: string | null;
  name: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export function createFolderRepository(pool: pg.Pool) {
  return {
    /** How `access.page` lists folders: by name, directly in `parentId` (null: the top) when asked. */
    listing: (parentId: string | null | undefined): Listing => ({
      alias: 'f',
      orderBy: 'f.name, f.id',
      filters: [[(ref) => `f.parent_id is not distinct from ${ref}::uuid`, parentId]],
    }),

    async byId(id: string): Promise<FolderRecord | undefined> {
      const { rows } = await pool.query<FolderRecord>(
        'select * from document_folders where id = $1',
        [id],
      );
      return rows[0];
    },

    /** Whether `id` is `folderId` or one of the folders above it. */
    async isAtOrAbove(id: string, folderId: string): Promise<boolean> {
      const { rows } = await pool.query<{ id: string }>(
        `with recursive up as (
           select id, parent_id from document_folders where id = $1
           union all select f.id, f.parent_id from document_folders f join up on f.id = up.parent_id)
         select id from up where id = $2`,
        [folderId, id],
      );
      return rows.length > 0;
    },

    async insert(
      client: pg.PoolClient,
      row: Pick<FolderRecord, 'id' | 'workspace_id' | 'parent_id' | 'name' | 'created_by'>,
    ): Promise<void> {
      await client.query(
        `insert into document_folders (id, workspace_id, parent_id, name, created_by)
         values ($1, $2, $3, $4, $5)`,
        [row.id, row.workspace_id, row.parent_id, row.name, row.created_by],
      );
    },

    async update(id: string, changes: { name?: string; parentId?: string | null }): Promise<void> {
      await pool.query(
        `update document_folders set name = coalesce($2, name),
           parent_id = case when $3 then $4::uuid else parent_id end, updated_at = now()
         where id = $1`,
        [id, changes.name ?? null, changes.parentId !== undefined, changes.parentId ?? null],
      );
    },

    /** Deletes the folder and every folder below it; their ids. */
    async removeTree(id: string): Promise<string[]> {
      const { rows } = await pool.query<{ id: string }>(
        `with recursive down as (
           select id from document_folders where id = $1
           union all select f.id from document_folders f join down on f.parent_id = down.id)
         delete from document_folders where id in (select id from down) returning id`,
        [id],
      );
      return rows.map((row) => row.id);
    },
  };
}

export type FolderRepository = ReturnType<typeof createFolderRepository>;
