/**
 * Document folders: a tree per workspace (a folder may sit in another). A folder's access list
 * says who sees it in listings; the documents in it keep their own lists. Deleting a folder
 * deletes its sub-folders; its documents stay, outside any folder.
 */
import { randomUUID } from 'node:crypto';
import { conflict, HttpError } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type { FolderRecord, FolderRepository } from './folder-repository';

const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('A folder of that name is already there') : err;
};

export function createFolders(
  repository: FolderRepository,
  access: AccessLists,
  workspaces: MemberCheck,
) {
  async function find(member: Membership, id: string): Promise<FolderRecord> {
    await access.requireVisible(member, 'folder', id);
    const folder = await repository.byId(id);
    if (!folder) throw new HttpError(404, 'folder_not_found', `The folder ${id} does not exist`);
    return folder;
  }

  /** A folder may not move into itself or below itself. */
  async function checkParent(member: Membership, id: string | undefined, parentId: string | null) {
    if (!parentId) return;
    await find(member, parentId);
    if (id && (await repository.isAtOrAbove(id, parentId))) {
      throw conflict('A folder cannot be moved into itself or below itself');
    }
  }

  // Reading a folder asks `knowledge.read`, changing one `knowledge.write`.
  const reader = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.read');
  const writer = (actor: Actor) => memberOf(workspaces, actor, 'knowledge.write');

  return {
    find: async (actor: Actor, id: string) => find(await reader(actor), id),
    /** Folders the member may see, by name; `parentId` only those directly in it (null: the top). */
    async list(actor: Actor, filter: Paging & { parentId?: string | null }) {
      return access.page<FolderRecord>(
        await reader(actor),
        'folder',
        repository.listing(filter.parentId),
        filter,
      );
    },
    async create(actor: Actor, input: { name: string; parentId: string | null }) {
      const member = await writer(actor);
      await checkParent(member, undefined, input.parentId);
      const id = randomUUID();
      await access.createGranted(member, 'folder', id, (client) =>
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
      return find(member, id);
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
