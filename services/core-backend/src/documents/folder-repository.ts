/** The SQL of document folders: a tree per workspace. */
import type pg from 'pg';
import type { Listing } from '../access/access-lists';
import { renameOrMove, rowWrites } from '../db/row-writes';

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
  const writes = rowWrites<Pick<FolderRecord, 'parent_id' | 'name'>>('document_folders', [
    'parent_id',
    'name',
  ]);
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

    insert: (
      client: pg.PoolClient,
      row: Pick<FolderRecord, 'id' | 'workspace_id' | 'parent_id' | 'name' | 'created_by'>,
    ) =>
      writes.insert(client, row.id, { workspaceId: row.workspace_id, userId: row.created_by }, row),

    update: (id: string, changes: { name?: string; parentId?: string | null }) =>
      renameOrMove(pool, { table: 'document_folders', placeColumn: 'parent_id' }, id, {
        name: changes.name,
        place: changes.parentId,
      }),

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
