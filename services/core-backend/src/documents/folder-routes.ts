/** /api/workspaces/:id/folders: the workspace's document folders. */
import { resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../workspaces/caller';
import { sentFields, workspaceResource } from '../workspaces/collection-routes';
import type { Folders } from './folders';
import {
  FolderBody,
  FolderList,
  FolderParams,
  FolderPatch,
  FolderQuery,
  FolderResponse,
  toFolderResponse,
} from './schemas';

export function folderRoutes(deps: { folders: Folders; callerOf: CallerOf }): RouteDefinition[] {
  const { folders } = deps;
  const taken = { 409: 'A folder of that name is already there, or a move into itself' };
  return resourceRoutes(
    workspaceResource(deps.callerOf, {
      segment: 'folders',
      params: FolderParams,
      one: { description: 'The folder', schema: FolderResponse, from: toFolderResponse },
      missing: 'No such workspace or folder (or not shared with the caller)',
    }),
    {
      list: {
        summary: 'Folders the caller may see, by name',
        page: { description: 'A page of folders', schema: FolderList },
        query: FolderQuery,
        run: (caller, { parent_id, ...paging }) =>
          folders.list(caller, {
            ...paging,
            ...(parent_id !== undefined
              ? { parentId: parent_id === 'root' ? null : parent_id }
              : {}),
          }),
      },
      create: {
        summary: 'Create a folder (at the top, or in `parent_id`)',
        body: FolderBody,
        run: (caller, body) =>
          folders.create(caller, { name: body.name, parentId: body.parent_id }),
        answers: taken,
      },
      show: {
        summary: 'One folder',
        run: (caller, { folderId }) => folders.find(caller, folderId),
      },
      change: {
        summary: 'Rename or move a folder',
        body: FolderPatch,
        run: (caller, { folderId }, body) =>
          folders.update(
            caller,
            folderId,
            sentFields(body, { name: 'name', parent_id: 'parentId' }),
          ),
        answers: taken,
      },
      remove: {
        summary: 'Delete a folder and its sub-folders (their documents stay, outside any folder)',
        run: (caller, { folderId }) => folders.remove(caller, folderId),
      },
    },
  );
}
