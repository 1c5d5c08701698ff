/**
 * /api/workspaces/:id/rooms: a user's chat rooms and their messages. Rooms are private to their
 * user: anyone else, owners included, is told the room does not exist. Needs `chat`.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Rooms } from './rooms';
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
} from './schemas';
import { Deleted, Paging, WorkspaceParams } from '../http-schemas';

export interface RoomDeps {
  rooms: Rooms;
  callerOf: CallerOf;
}

export function roomRoutes(deps: RoomDeps): RouteDefinition[] {
  const { rooms } = deps;
  const tags = ['rooms'];
  const missing = { description: 'No such workspace or room (or not yours)' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);

  return [
    defineRoute({
      method: 'get',
      path: '/api/workspaces/:workspaceId/rooms',
      summary: "The caller's rooms, last used first",
      tags,
      request: { params: WorkspaceParams, query: Paging },
      responses: { 200: { description: 'A page of rooms', schema: RoomList }, 404: missing },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await rooms.list(
          await actor(req, params.workspaceId),
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
        const room = await rooms.create(await actor(req, params.workspaceId), {
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
        toRoomResponse(await rooms.find(await actor(req, params.workspaceId), params.roomId)),
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
        return toRoomResponse(
          await rooms.update(await actor(req, params.workspaceId), params.roomId, {
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
        await rooms.remove(await actor(req, params.workspaceId), params.roomId);
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
        const { room, messages } = await rooms.messages(
          await actor(req, params.workspaceId),
          params.roomId,
          query.page,
          query.limit,
        );
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
        return toChatMessageRecord(
          await rooms.react(
            await actor(req, params.workspaceId),
            params.roomId,
            params.messageId,
            body.reaction,
          ),
        );
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
        await rooms.deleteMessage(
          await actor(req, params.workspaceId),
          params.roomId,
          params.messageId,
        );
        return { deleted: true };
      },
    }),
  ];
}
