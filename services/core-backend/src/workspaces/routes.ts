/** /api/workspaces: the caller's workspaces, one workspace, its settings, its members. */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
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
  const missing = { description: 'No such workspace, or the caller is not a member' };
  const callerId = async (req: Request) => (await callerOf(req)).id;
  return [
    ...resourceRoutes(
      {
        tags,
        path: '/api/workspaces',
        item: '/:workspaceId',
        params: { item: WorkspaceParams },
        caller: callerId,
        one: { description: 'The workspace', schema: WorkspaceResponse, from: toWorkspaceResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'The workspaces the caller is a member of, newest first',
          page: { description: 'A page of workspaces', schema: WorkspaceList },
          query: Paging,
          run: (userId, query) => workspaces.listFor(userId, query),
        },
        create: {
          summary: 'Create a workspace; the caller becomes its owner',
          body: WorkspaceBody,
          run: (userId, body) => workspaces.create(userId, body),
        },
        show: {
          summary: 'One workspace',
          run: (userId, { workspaceId }) => workspaces.show(userId, workspaceId),
        },
        change: {
          summary: 'Rename, describe or re-set a workspace (workspace.manage)',
          body: WorkspacePatch,
          run: (userId, { workspaceId }, body) => workspaces.change(userId, workspaceId, body),
          answers: { 403: 'Not allowed by the workspace role' },
        },
        remove: {
          summary: 'Delete a workspace and everything in it (workspace.manage)',
          run: (userId, { workspaceId }) => workspaces.destroy(userId, workspaceId),
        },
      },
    ),
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/settings',
      summary: 'The settings of a workspace, defaults filled in',
      tags,
      request: { params: WorkspaceParams },
      responses: { 200: { description: 'Settings', schema: WorkspaceSettings }, 404: missing },
      handler: async ({ params }, req) => {
        return workspaces.settingsOf(await callerId(req), params.workspaceId);
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
        return workspaces.replaceSettings(await callerId(req), params.workspaceId, body);
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
          await callerId(req),
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
        const { rows, ...page } = await workspaces.putMember(
          await callerId(req),
          params.workspaceId,
          params.userId,
          body.role,
        );
        return { data: rows.map(toMemberResponse), ...page };
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
        await workspaces.dropMember(await callerId(req), params.workspaceId, params.userId);
        return { deleted: true };
      },
    }),
  ];
}
