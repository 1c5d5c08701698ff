/** /api/workspaces/:id/app-keys: keys of the workspace's open API (workspace.manage). */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { AppKeys } from '../app-keys/app-keys';
import type { CallerOf } from '../caller';
import { Paging, WorkspaceParams } from '../schemas/common';
import {
  AppKeyBody,
  AppKeyCreated,
  AppKeyList,
  AppKeyParams,
  AppKeyResponse,
  toAppKeyResponse,
} from '../schemas/workspaces';
import type { Workspaces } from '../workspaces/workspaces';

export function appKeyRoutes(
  workspaces: Workspaces,
  appKeys: AppKeys,
  callerOf: CallerOf,
): RouteDefinition[] {
  const tags = ['app keys'];
  const missing = { description: 'No such workspace or key' };
  return [
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/app-keys',
      summary: 'Keys of the workspace (prefixes only), newest first',
      tags,
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of keys', schema: AppKeyList }, 404: missing },
      handler: async ({ params, query }, req) => {
        await workspaces.access(params.workspaceId, (await callerOf(req)).id, 'workspace.manage');
        const { rows, total } = await appKeys.list(params.workspaceId, query);
        return { data: rows.map(toAppKeyResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/app-keys',
      summary: 'Make a key; the answer is the only time the whole key is shown',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: AppKeyBody },
      responses: { 201: { description: 'The new key', schema: AppKeyCreated }, 404: missing },
      handler: async ({ params, body }, req) => {
        const caller = await callerOf(req);
        await workspaces.access(params.workspaceId, caller.id, 'workspace.manage');
        const created = await appKeys.create(params.workspaceId, body.name, caller.id);
        return { ...toAppKeyResponse(created), key: created.key };
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
        await workspaces.access(params.workspaceId, (await callerOf(req)).id, 'workspace.manage');
        return toAppKeyResponse(await appKeys.revoke(params.workspaceId, params.keyId));
      },
    }),
  ];
}
