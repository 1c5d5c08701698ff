/** /api/workspaces: the caller's workspaces, one workspace, its settings, its members. */
import { itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { Request } from 'express';
import type { CallerOf } from './caller';
import { workspaceItem } from './collection-routes';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';
import {
  MemberBody,
  MemberList,
  MemberParams,
  MemberResponse,
  toMemberResponse,
  WorkspaceBody,
  WorkspaceList,
  WorkspacePatch,
} from './schemas';
import { WorkspaceSettings } from './workspace-settings';
import type { Workspaces } from './workspaces';

export function workspaceRoutes(workspaces: Workspaces, callerOf: CallerOf): RouteDefinition[] {
  const missing = 'No such workspace, or the caller is not a member';
  const callerId = async (req: Request) => (await callerOf(req)).id;
  const workspace = {
    ...workspaceItem,
    tags: ['workspaces'],
    path: '/api/workspaces',
    caller: callerId,
    missing,
  };
  const member = {
    tags: ['workspace users'],
    path: '/api/workspaces/:workspaceId/users',
    params: { collection: WorkspaceParams, item: MemberParams },
    caller: callerId,
    one: { description: 'The member', schema: MemberResponse, from: toMemberResponse },
    missing,
  };
  const settings = { description: 'Settings', schema: WorkspaceSettings };
  return [
    ...resourceRoutes(workspace, {
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
    }),
    itemRoute(workspace, {
      method: 'get',
      path: '/settings',
      summary: 'The settings of a workspace, defaults filled in',
      answer: settings,
      run: (userId, { workspaceId }) => workspaces.settingsOf(userId, workspaceId),
    }),
    itemRoute(workspace, {
      method: 'put',
      path: '/settings',
      summary:
        'Replace the settings of a workspace (workspace.manage); keys left out take defaults',
      body: WorkspaceSettings,
      answer: settings,
      run: (userId, { workspaceId }, { body }) =>
        workspaces.replaceSettings(userId, workspaceId, body),
    }),
    ...resourceRoutes(member, {
      list: {
        summary: 'Members of a workspace with their roles',
        page: { description: 'A page of members', schema: MemberList },
        query: Paging,
        run: (callerId, query, { workspaceId }) =>
          workspaces.membersOf(callerId, workspaceId, query),
      },
    }),
    itemRoute(member, {
      method: 'put',
      summary: 'Add a member or change their role (members.manage)',
      body: MemberBody,
      answer: { description: 'Members after the change', schema: MemberList },
      answers: {
        400: 'No such workspace role',
        403: "A role beyond the caller's own, or an owner's (owners only)",
        404: 'No such workspace, or the user is unknown here',
        409: 'The change would leave the workspace without an owner',
      },
      run: async (callerId, { workspaceId, userId }, { body }) => {
        const { rows, ...page } = await workspaces.putMember(
          callerId,
          workspaceId,
          userId,
          body.role,
        );
        return { data: rows.map(toMemberResponse), ...page };
      },
    }),
    itemRoute(member, {
      method: 'delete',
      summary: 'Remove a member (members.manage; anyone may leave)',
      answer: { description: 'Removed', schema: Deleted },
      answers: {
        403: 'Without members.manage, or an owner removed by a non-owner',
        404: 'Not a member',
        409: 'The last owner cannot leave',
      },
      run: async (callerId, { workspaceId, userId }) => {
        await workspaces.dropMember(callerId, workspaceId, userId);
        return { deleted: true };
      },
    }),
  ];
}
