/**
 * /api/workspaces/:id/app-keys: keys of the workspace's open API and widgets (workspace.manage).
 * Only the list is a plain collection route: a new key is answered with its secret, a key's
 * scope is replaced at `/scope`, and a revoked key stays (DELETE answers it).
 */
import { defineRoute, itemRoute, moduleRoutes, type RouteDefinition } from '@pelita/kit';
import type { AppKeys } from './app-keys';
import type { CallerOf } from '../workspaces/caller';
import { actorFor, workspaceResource } from '../workspaces/collection-routes';
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
  const actor = actorFor(callerOf);
  const key = workspaceResource(callerOf, {
    segment: 'app-keys',
    tags,
    item: '/:keyId',
    params: AppKeyParams,
    one: { description: 'The key', schema: AppKeyResponse, from: toAppKeyResponse },
    missing: missing.description,
  });
  const answer = { description: 'The key', schema: AppKeyResponse };
  return [
    ...moduleRoutes(key, appKeys, {
      list: {
        summary: 'Keys of the workspace (prefixes only) with their sources, newest first',
        page: { description: 'A page of keys', schema: AppKeyList },
        query: Paging,
      },
    }),
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
        const created = await appKeys.create(await actor(req, params), body);
        return { ...toAppKeyResponse(created), key: created.key };
      },
    }),
    itemRoute(key, {
      method: 'put',
      path: '/scope',
      summary: 'Replace what a key may answer from and whose sessions it may read',
      body: AppKeyScope,
      answer,
      answers: { 400: badScope.description },
      run: async (caller, { keyId }, { body }) =>
        toAppKeyResponse(await appKeys.setScope(caller, keyId, body)),
    }),
    itemRoute(key, {
      method: 'delete',
      summary: 'Revoke a key (it stays listed with `revoked_at`)',
      answer: { ...answer, description: 'The revoked key' },
      run: async (caller, { keyId }) => toAppKeyResponse(await appKeys.revoke(caller, keyId)),
    }),
  ];
}
