/**
 * /api/workspaces/:id/app-keys: keys of the workspace's open API and widgets (workspace.manage).
 * Only the list is a plain collection route: a new key is answered with its secret, a key's
 * scope is replaced at `/scope`, and a revoked key stays (DELETE answers it).
 */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { AppKeys } from './app-keys';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { Paging, WorkspaceParams } from '../http-schemas';
import {
  AppKeyBody,
  AppKeyCreated,
  AppKeyList,
  AppKeyParams,
  AppKeyResponse,
  AppKeyScope,
  toAppKeyResponse,
} from './schemas';

export function appKeyRoutes(appKeys: AppKeys, callerOf: CallerOf): RouteDefinition[] {
  const tags = ['app keys'];
  const missing = { description: 'No such workspace or key' };
  const badScope = { description: 'A source the caller may not use, or a key of elsewhere' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(callerOf, req, workspaceId);
  return [
    ...resourceRoutes(
      {
        tags,
        path: '/api/workspaces/:workspaceId/app-keys',
        item: '/:keyId',
        params: { collection: WorkspaceParams, item: AppKeyParams },
        caller: (req, params) => actor(req, params.workspaceId),
        one: { description: 'The key', schema: AppKeyResponse, from: toAppKeyResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Keys of the workspace (prefixes only) with their sources, newest first',
          page: { description: 'A page of keys', schema: AppKeyList },
          query: Paging,
          run: (caller, query) => appKeys.list(caller, query),
        },
      },
    ),
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/app-keys',
      summary: 'Make a key; the answer is the only time the whole key is shown',
      description:
        'The key (and every widget made with it) answers only from its `sources`: documents, folders (with their sub-folders), topics and audios of the workspace. A key without sources answers from nothing.',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: AppKeyBody },
      responses: {
        201: { description: 'The new key', schema: AppKeyCreated },
        400: badScope,
        404: missing,
      },
      handler: async ({ params, body }, req) => {
        const created = await appKeys.create(await actor(req, params.workspaceId), body);
        return { ...toAppKeyResponse(created), key: created.key };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspaces/:workspaceId/app-keys/:keyId/scope',
      summary: 'Replace what a key may answer from and whose sessions it may read',
      tags,
      request: { params: AppKeyParams, body: AppKeyScope },
      responses: {
        200: { description: 'The key', schema: AppKeyResponse },
        400: badScope,
        404: missing,
      },
      handler: async ({ params, body }, req) => {
        return toAppKeyResponse(
          await appKeys.setScope(await actor(req, params.workspaceId), params.keyId, body),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/workspaces/:workspaceId/app-keys/:keyId',
      summary: 'Revoke a key (it stays listed with `revoked_at`)',
      tags,
      request: { params: AppKeyParams },
      responses: { 200: { description: 'The revoked key', schema: AppKeyResponse }, 404: missing },
      handler: async ({ params }, req) => {
        return toAppKeyResponse(
          await appKeys.revoke(await actor(req, params.workspaceId), params.keyId),
        );
      },
    }),
  ];
}
