/**
 * /api/workspaces/:id/rooms: a user's chat rooms and their messages. Rooms are private to their
 * user: anyone else, owners included, is told the room does not exist. Needs `chat`.
 */
import { badRequest, defineRoute, type RouteDefinition } from '@pelita/kit';
import type { AccessLists, ResourceType } from '../access/access-lists';
import type { CallerOf } from '../caller';
import type { ChatStore, KnowledgeSource } from '../chats/chat-store';
import {
  ChatMessageRecord,
  MessageList,
  MessageParams,
  ReactionBody,
  RoomBody,
  RoomList,
  RoomParams,
  RoomPatch,
  RoomResponse,
  toChatMessageRecord,
  toRoomResponse,
} from '../schemas/chats';
import { Deleted, Paging, WorkspaceParams } from '../schemas/common';
import type { Membership, Workspaces } from '../workspaces/workspaces';

export interface RoomDeps {
  workspaces: Workspaces;
  access: AccessLists;
  chats: ChatStore;
  callerOf: CallerOf;
}

export function roomRoutes(deps: RoomDeps): RouteDefinition[] {
  const { workspaces, chats, callerOf } = deps;
  const tags = ['rooms'];
  const missing = { description: 'No such workspace or room (or not yours)' };
  const memberOf = async (req: Parameters<CallerOf>[0], workspaceId: string) =>
    workspaces.access(workspaceId, (await callerOf(req)).id, 'chat');
  const roomOf = async (req: Parameters<CallerOf>[0], workspaceId: string, roomId: string) => {
    const member = await memberOf(req, workspaceId);
    return chats.room(workspaceId, member.userId, roomId);
  };

  /** Every source a room names must be one the member may use (400 otherwise). */
  async function checkSources(member: Membership, sources: KnowledgeSource[]): Promise<void> {
    for (const source of sources) {
      const type = source.type as ResourceType;
      for (const id of source.topic_id) {
        if (!(await deps.access.canUse(member, type, id))) {
          throw badRequest(`No ${type} ${id} you may use in this workspace`);
        }
      }
    }
  }

  return [
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/rooms',
      summary: "The caller's rooms, last used first",
      tags,
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of rooms', schema: RoomList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const member = await memberOf(req, params.workspaceId);
        const { rows, total } = await chats.rooms(
          params.workspaceId,
          member.userId,
          query.page,
          query.limit,
        );
        return { data: rows.map(toRoomResponse), total, ...query };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/rooms',
      summary: 'Open a room with chosen knowledge sources and model',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: RoomBody },
      responses: {
        201: { description: 'The room', schema: RoomResponse },
        400: { description: 'A source the caller may not use' },
        404: missing,
      },
      handler: async ({ params, body }, req) => {
        const member = await memberOf(req, params.workspaceId);
        await checkSources(member, body.knowledge_sources);
        const room = await chats.createRoom({
          workspaceId: params.workspaceId,
          userId: member.userId,
          name: body.name,
          knowledgeSources: body.knowledge_sources,
          model: body.model,
        });
        return toRoomResponse(room);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/rooms/:roomId',
      summary: 'One room',
      tags,
      request: { params: RoomParams },
      responses: { 200: { description: 'The room', schema: RoomResponse }, 404: missing },
      handler: async ({ params }, req) =>
        toRoomResponse(await roomOf(req, params.workspaceId, params.roomId)),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/workspaces/:workspaceId/rooms/:roomId',
      summary: 'Rename a room or change its sources or model',
      tags,
      request: { params: RoomParams, body: RoomPatch },
      responses: {
        200: { description: 'The room', schema: RoomResponse },
        400: { description: 'A source the caller may not use' },
        404: missing,
      },
      handler: async ({ params, body }, req) => {
        const member = await memberOf(req, params.workspaceId);
        const room = await chats.room(params.workspaceId, member.userId, params.roomId);
        if (body.knowledge_sources) await checkSources(member, body.knowledge_sources);
        return toRoomResponse(
          await chats.updateRoom(room, {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.knowledge_sources ? { knowledgeSources: body.knowledge_sources } : {}),
            ...(body.model !== undefined ? { model: body.model } : {}),
          }),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/workspaces/:workspaceId/rooms/:roomId',
      summary: 'Delete a room and its messages',
      tags,
      request: { params: RoomParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await chats.deleteRoom(await roomOf(req, params.workspaceId, params.roomId));
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages',
      summary: "The room's messages, newest first",
      tags,
      request: { params: RoomParams, query: Paging },
      responses: { 200: { description: 'A page of messages', schema: MessageList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const room = await roomOf(req, params.workspaceId, params.roomId);
        const messages = await chats.page(room, query.page, query.limit);
        return { data: messages.map(toChatMessageRecord), total: room.messageCount, ...query };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages/:messageId/reaction',
      summary: 'Like or dislike an answer (each replaces the other), or take it back (null)',
      tags,
      request: { params: MessageParams, body: ReactionBody },
      responses: { 200: { description: 'The message', schema: ChatMessageRecord }, 404: missing },
      handler: async ({ params, body }, req) => {
        const room = await roomOf(req, params.workspaceId, params.roomId);
        return toChatMessageRecord(await chats.react(room, params.messageId, body.reaction));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages/:messageId',
      summary: 'Delete a message',
      tags,
      request: { params: MessageParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        const room = await roomOf(req, params.workspaceId, params.roomId);
        await chats.deleteMessage(room, params.messageId);
        return { deleted: true };
      },
    }),
  ];
}
