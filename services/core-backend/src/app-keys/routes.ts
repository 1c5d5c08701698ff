/**
 * /api/workspaces/:id/app-keys: keys of the workspace's open API and widgets (workspace.manage).
 * Only the list is a plain collection route: a new key is answered with its secret, a key's
 * scope is replaced at `/scope`, and a revoked key stays (DELETE answers it).
 */
import { collectionRoute, itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { AppKeys } from './app-keys';
import type { CallerOf } from '../workspaces/caller';
import { workspaceResource } from '../workspaces/collection-routes';
import { Paging } from '../http-schemas';
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
  const badScope = { 400: 'A source the caller may not use, or a key of elsewhere' };
  const key = workspaceResource(callerOf, {
    segment: 'app-keys',
    tags: ['app keys'],
    params: AppKeyParams,
    one: { description: 'The key', schema: AppKeyResponse, from: toAppKeyResponse },
    missing: 'No such workspace or key',
  });
  const answer = { description: 'The key', schema: AppKeyResponse };
  return [
    ...resourceRoutes(
      key,
      {
        list: {
          summary: 'Keys of the workspace (prefixes only) with their sources, newest first',
          page: { description: 'A page of keys', schema: AppKeyList },
          query: Paging,
        },
      },
      appKeys,
    ),
    collectionRoute(key, {
      method: 'post',
      status: 201,
      summary: 'Make a key; the answer is the only time the whole key is shown',
      description:
        'The key (and every widget made with it) answers only from its `sources`: documents, folders (with their sub-folders), topics and audios of the workspace. A key without sources answers from nothing.',
      body: AppKeyBody,
      answer: { description: 'The new key', schema: AppKeyCreated },
      answers: badScope,
      run: async (caller, _params, { body }) => {
        const created = await appKeys.create(caller, body);
        return { ...toAppKeyResponse(created), key: created.key };
      },
    }),
    itemRoute(key, {
      method: 'put',
      path: '/scope',
      summary: 'Replace what a key may answer from and whose sessions it may read',
      body: AppKeyScope,
      answer,
      answers: badScope,
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
