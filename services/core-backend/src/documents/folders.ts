/**
 * Document folders: a tree per workspace (a folder may sit in another). A folder's access list
 * says who sees it in listings; the documents in it keep their own lists. Deleting a folder
 * deletes its sub-folders; its documents stay, outside any folder.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError, inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';

export interface FolderRecord {
  id: string;
  workspace_id: string;
  parent_id: string | null;
  name: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A folder of that name is already there') : err;
};

export function createFolders(pool: pg.Pool, access: AccessLists, workspaces: MemberCheck) {
  async function find(member: Membership, id: string): Promise<FolderRecord> {
    await access.requireVisible(member, 'folder', id);
    const { rows } = await pool.query<FolderRecord>(
      'select * from document_folders where id = $1',
      [id],
    );
    if (!rows[0]) throw new HttpError(404, 'folder_not_found', `The folder ${id} does not exist`);
    return rows[0];
  }

  /** A folder may not move into itself or below itself. */
  async function checkParent(member: Membership, id: string | undefined, parentId: string | null) {
    if (!parentId) return;
    await find(member, parentId);
    if (!id) return;
    const { rows } = await pool.query<{ id: string }>(
      `with recursive up as (
         select id, parent_id from document_folders where id = $1
         union all select f.id, f.parent_id from document_folders f join up on f.id = up.parent_id)
       select id from up where id = $2`,
      [parentId, id],
    );
    if (rows.length > 0) throw conflict('A folder cannot be moved into itself or below itself');
  }

  // Reading a folder asks `knowledge.read`, changing one `knowledge.write`.
  const reader = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    async list(actor: Actor, filter: Paging & { parentId?: string | null }) {
      const member = await reader(actor);
      const values: unknown[] = [member.workspaceId];
      const conditions = ['f.workspace_id = $1', access.visibleSql(member, 'folder', 'f', values)];
      if (filter.parentId !== undefined) {
        values.push(filter.parentId);
        conditions.push(`f.parent_id is not distinct from $${values.length}::uuid`);
      }
      const where = conditions.join(' and ');
      const { rows: count } = await pool.query<{ n: number }>(
        `select count(*)::int as n from document_folders f where ${where}`,
        values,
      );
      values.push(filter.limit, (filter.page - 1) * filter.limit);
      const { rows } = await pool.query<FolderRecord>(
        `select f.* from document_folders f where ${where} order by f.name, f.id
         limit $${values.length - 1} offset $${values.length}`,
        values,
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(actor: Actor, input: { name: string; parentId: string | null }) {
      const member = await writer(actor);
      await checkParent(member, undefined, input.parentId);
      const id = randomUUID();
      await inTransaction(pool, async (client) => {
        await client
          .query(
            `insert into document_folders (id, workspace_id, parent_id, name, created_by)
             values ($1, $2, $3, $4, $5)`,
            [id, member.workspaceId, input.parentId, input.name, member.userId],
          )
          .catch(taken);
        await access.grantCreator(member, 'folder', id, client);
      });
      return find(member, id);
    },
    async update(actor: Actor, id: string, changes: { name?: string; parentId?: string | null }) {
      const member = await writer(actor);
      await find(member, id);
      if (changes.parentId !== undefined) await checkParent(member, id, changes.parentId);
      await pool
        .query(
          `update document_folders set name = coalesce($2, name),
             parent_id = case when $3 then $4::uuid else parent_id end, updated_at = now()
           where id = $1`,
          [id, changes.name ?? null, changes.parentId !== undefined, changes.parentId ?? null],
        )
        .catch(taken);
      return find(member, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      const { rows } = await pool.query<{ id: string }>(
        `with recursive down as (
           select id from document_folders where id = $1
           union all select f.id from document_folders f join down on f.parent_id = down.id)
         delete from document_folders where id in (select id from down) returning id`,
        [id],
      );
      for (const row of rows) await access.forget('folder', row.id);
    },
  };
}

export type Folders = ReturnType<typeof createFolders>;
