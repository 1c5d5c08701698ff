/** /api/workspaces: the caller's workspaces, one workspace, its settings, its members. */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from './caller';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';
import {
  MemberBody,
  MemberList,
  MemberParams,
  toMemberResponse,
  toWorkspaceResponse,
  WorkspaceBody,
  WorkspaceList,
  WorkspacePatch,
  WorkspaceResponse,
} from './schemas';
import { WorkspaceSettings } from './workspace-settings';
import type { Workspaces } from './workspaces';

export function workspaceRoutes(workspaces: Workspaces, callerOf: CallerOf): RouteDefinition[] {
  const tags = ['workspaces'];
  const one = { description: 'The workspace', schema: WorkspaceResponse };
  const missing = { description: 'No such workspace, or the caller is not a member' };
  return [
    defineRoute({
      method: 'get',
      path: '/api/workspaces',
      summary: 'The workspaces the caller is a member of, newest first',
      tags,
      request: { query: Paging },
      responses: { 200: { description: 'A page of workspaces', schema: WorkspaceList } },
      handler: async ({ query }, req) => {
        const { rows, total } = await workspaces.listFor((await callerOf(req)).id, query);
        return { data: rows.map(toWorkspaceResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/workspaces',
      summary: 'Create a workspace; the caller becomes its owner',
      tags,
      successStatus: 201,
      request: { body: WorkspaceBody },
      responses: { 201: one },
      handler: async ({ body }, req) =>
        toWorkspaceResponse(await workspaces.create((await callerOf(req)).id, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId',
      summary: 'One workspace',
      tags,
      request: { params: WorkspaceParams },
      responses: { 200: one, 404: missing },
      handler: async ({ params }, req) => {
        return toWorkspaceResponse(
          await workspaces.show((await callerOf(req)).id, params.workspaceId),
        );
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/workspaces/:workspaceId',
      summary: 'Rename, describe or re-set a workspace (workspace.manage)',
      tags,
      request: { params: WorkspaceParams, body: WorkspacePatch },
      responses: {
        200: one,
        403: { description: 'Not allowed by the workspace role' },
        404: missing,
      },
      handler: async ({ params, body }, req) => {
        return toWorkspaceResponse(
          await workspaces.change((await callerOf(req)).id, params.workspaceId, body),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/workspaces/:workspaceId',
      summary: 'Delete a workspace and everything in it (workspace.manage)',
      tags,
      request: { params: WorkspaceParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await workspaces.destroy((await callerOf(req)).id, params.workspaceId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/settings',
      summary: 'The settings of a workspace, defaults filled in',
      tags,
      request: { params: WorkspaceParams },
      responses: { 200: { description: 'Settings', schema: WorkspaceSettings }, 404: missing },
      handler: async ({ params }, req) => {
        return workspaces.settingsOf((await callerOf(req)).id, params.workspaceId);
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspaces/:workspaceId/settings',
      summary:
        'Replace the settings of a workspace (workspace.manage); keys left out take defaults',
      tags,
      request: { params: WorkspaceParams, body: WorkspaceSettings },
      responses: { 200: { description: 'Settings', schema: WorkspaceSettings }, 404: missing },
      handler: async ({ params, body }, req) => {
        return workspaces.replaceSettings((await callerOf(req)).id, params.workspaceId, body);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/users',
      summary: 'Members of a workspace with their roles',
      tags: ['workspace users'],
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of members', schema: MemberList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await workspaces.membersOf(
          (await callerOf(req)).id,
          params.workspaceId,
          query,
        );
        return { data: rows.map(toMemberResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspaces/:workspaceId/users/:userId',
      summary: 'Add a member or change their role (members.manage)',
      tags: ['workspace users'],
      request: { params: MemberParams, body: MemberBody },
      responses: {
        200: { description: 'Members after the change', schema: MemberList },
        400: { description: 'No such workspace role' },
        403: { description: "A role beyond the caller's own, or an owner's (owners only)" },
        404: { description: 'No such workspace, or the user is unknown here' },
        409: { description: 'The change would leave the workspace without an owner' },
      },
      handler: async ({ params, body }, req) => {
        const caller = await callerOf(req);
        await workspaces.putMember(caller.id, params.workspaceId, params.userId, body.role);
        const { rows, total } = await workspaces.members(params.workspaceId, {
          page: 1,
          limit: 200,
        });
        return { data: rows.map(toMemberResponse), total, page: 1, limit: 200 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/workspaces/:workspaceId/users/:userId',
      summary: 'Remove a member (members.manage; anyone may leave)',
      tags: ['workspace users'],
      request: { params: MemberParams },
      responses: {
        200: { description: 'Removed', schema: Deleted },
        403: { description: 'Without members.manage, or an owner removed by a non-owner' },
        404: { description: 'Not a member' },
        409: { description: 'The last owner cannot leave' },
      },
      handler: async ({ params }, req) => {
        const caller = await callerOf(req);
        await workspaces.dropMember(caller.id, params.workspaceId, params.userId);
        return { deleted: true };
      },
    }),
  ];
}
