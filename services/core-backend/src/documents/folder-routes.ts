/** /api/workspaces/:id/folders: the workspace's document folders. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Folders } from './folders';
import { Deleted, WorkspaceParams } from '../http-schemas';
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
  const tags = ['folders'];
  const one = { description: 'The folder', schema: FolderResponse };
  const missing = { description: 'No such workspace or folder (or not shared with the caller)' };
  const taken = { description: 'A folder of that name is already there, or a move into itself' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const path = '/api/workspaces/:workspaceId/folders';
  return [
    defineRoute({
      method: 'get',
      path,
      summary: 'Folders the caller may see, by name',
      tags,
      request: { params: WorkspaceParams, query: FolderQuery },
      responses: { 200: { description: 'A page of folders', schema: FolderList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const parentId =
          query.parent_id === undefined
            ? undefined
            : query.parent_id === 'root'
              ? null
              : query.parent_id;
        const { rows, total } = await folders.list(await actor(req, params.workspaceId), {
          page: query.page,
          limit: query.limit,
          ...(parentId !== undefined ? { parentId } : {}),
        });
        return { data: rows.map(toFolderResponse), total, page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'post',
      path,
      summary: 'Create a folder (at the top, or in `parent_id`)',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: FolderBody },
      responses: { 201: one, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toFolderResponse(
          await folders.create(await actor(req, params.workspaceId), {
            name: body.name,
            parentId: body.parent_id,
          }),
        ),
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:folderId`,
      summary: 'One folder',
      tags,
      request: { params: FolderParams },
      responses: { 200: one, 404: missing },
      handler: async ({ params }, req) =>
        toFolderResponse(await folders.find(await actor(req, params.workspaceId), params.folderId)),
    }),
    defineRoute({
      method: 'patch',
      path: `${path}/:folderId`,
      summary: 'Rename or move a folder',
      tags,
      request: { params: FolderParams, body: FolderPatch },
      responses: { 200: one, 404: missing, 409: taken },
      handler: async ({ params, body }, req) =>
        toFolderResponse(
          await folders.update(await actor(req, params.workspaceId), params.folderId, {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.parent_id !== undefined ? { parentId: body.parent_id } : {}),
          }),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: `${path}/:folderId`,
      summary: 'Delete a folder and its sub-folders (their documents stay, outside any folder)',
      tags,
      request: { params: FolderParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await folders.remove(await actor(req, params.workspaceId), params.folderId);
        return { deleted: true };
      },
    }),
  ];
}
