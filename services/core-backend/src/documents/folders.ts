/**
 * Document folders: a tree per workspace (a folder may sit in another). A folder's access list
 * says who sees it in listings; the documents in it keep their own lists. Deleting a folder
 * deletes its sub-folders; its documents stay, outside any folder.
 */
import { conflict } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import { knowledgeRows } from '../access/knowledge-rows';
import type { Actor, MemberCheck } from '../workspaces/actor';
import { conflictOnUnique } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { FolderRecord, FolderRepository } from './folder-repository';

const taken = conflictOnUnique('A folder of that name is already there');

export function createFolders(
  repository: FolderRepository,
  access: AccessLists,
  workspaces: MemberCheck,
) {
  // Reading a folder asks `knowledge.read`, changing one `knowledge.write`.
  const rows = knowledgeRows<FolderRecord>({
    access,
    workspaces,
    type: 'folder',
    read: (id) => repository.byId(id),
  });
  const { find, writer } = rows;

  /** A folder may not move into itself or below itself. */
  async function checkParent(member: Membership, id: string | undefined, parentId: string | null) {
    if (!parentId) return;
    await find(member, parentId);
    if (id && (await repository.isAtOrAbove(id, parentId))) {
      throw conflict('A folder cannot be moved into itself or below itself');
    }
  }

  return {
    find: rows.show,
    /** Folders the member may see, by name; `parentId` only those directly in it (null: the top). */
    list: (actor: Actor, filter: Paging & { parentId?: string | null }) =>
      rows.page(actor, () => repository.listing(filter.parentId), filter),
    async create(actor: Actor, input: { name: string; parentId: string | null }) {
      const member = await writer(actor);
      await checkParent(member, undefined, input.parentId);
      return rows.create(member, (client, id) =>
        repository
          .insert(client, {
            id,
            workspace_id: member.workspaceId,
            parent_id: input.parentId,
            name: input.name,
            created_by: member.userId,
          })
          .catch(taken),
      );
    },
    async update(actor: Actor, id: string, changes: { name?: string; parentId?: string | null }) {
      const member = await writer(actor);
      await find(member, id);
      if (changes.parentId !== undefined) await checkParent(member, id, changes.parentId);
      await repository.update(id, changes).catch(taken);
      return find(member, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const member = await writer(actor);
      await find(member, id);
      for (const removed of await repository.removeTree(id)) await access.forget('folder', removed);
    },
  };
}

export type Folders = ReturnType<typeof createFolders>;
