/**
 * /api/workspaces/:id/rooms: a user's chat rooms and their messages. Rooms are private to their
 * user: anyone else, owners included, is told the room does not exist. Needs `chat`.
 */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
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
import { Paging, WorkspaceParams } from '../http-schemas';

export interface RoomDeps {
  rooms: Rooms;
  callerOf: CallerOf;
}

export function roomRoutes(deps: RoomDeps): RouteDefinition[] {
  const { rooms } = deps;
  const tags = ['rooms'];
  const missing = 'No such workspace or room (or not yours)';
  const actor = (req: Parameters<CallerOf>[0], params: { workspaceId: string }) =>
    actorOf(deps.callerOf, req, params.workspaceId);
  const path = '/api/workspaces/:workspaceId/rooms';
  const badSource = { 400: 'A source the caller may not use' };

  return [
    ...resourceRoutes(
      {
        tags,
        path,
        item: '/:roomId',
        params: { collection: WorkspaceParams, item: RoomParams },
        caller: actor,
        one: { description: 'The room', schema: RoomResponse, from: toRoomResponse },
        missing,
      },
      {
        list: {
          summary: "The caller's rooms, last used first",
          page: { description: 'A page of rooms', schema: RoomList },
          query: Paging,
          run: (caller, query) => rooms.list(caller, query.page, query.limit),
        },
        create: {
          summary: 'Open a room with chosen knowledge sources and model',
          body: RoomBody,
          run: (caller, body) =>
            rooms.create(caller, {
              name: body.name,
              knowledgeSources: body.knowledge_sources,
              model: body.model,
            }),
          answers: badSource,
        },
        show: { summary: 'One room', run: (caller, { roomId }) => rooms.find(caller, roomId) },
        change: {
          summary: 'Rename a room or change its sources or model',
          body: RoomPatch,
          run: (caller, { roomId }, body) =>
            rooms.update(caller, roomId, {
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.knowledge_sources ? { knowledgeSources: body.knowledge_sources } : {}),
              ...(body.model !== undefined ? { model: body.model } : {}),
            }),
          answers: badSource,
        },
        remove: {
          summary: 'Delete a room and its messages',
          run: (caller, { roomId }) => rooms.remove(caller, roomId),
        },
      },
    ),
    ...resourceRoutes(
      {
        tags,
        path: `${path}/:roomId/messages`,
        item: '/:messageId',
        params: { collection: RoomParams, item: MessageParams },
        caller: actor,
        one: { description: 'The message', schema: ChatMessageRecord, from: toChatMessageRecord },
        missing,
      },
      {
        list: {
          summary: "The room's messages, newest first",
          page: { description: 'A page of messages', schema: MessageList },
          query: Paging,
          run: async (caller, query, { roomId }) => {
            const { room, messages } = await rooms.messages(
              caller,
              roomId,
              query.page,
              query.limit,
            );
            return { rows: messages, total: room.messageCount };
          },
        },
        remove: {
          summary: 'Delete a message',
          run: (caller, { roomId, messageId }) => rooms.deleteMessage(caller, roomId, messageId),
        },
      },
    ),
    defineRoute({
      method: 'put',
      path: `${path}/:roomId/messages/:messageId/reaction`,
      summary: 'Like or dislike an answer (each replaces the other), or take it back (null)',
      tags,
      request: { params: MessageParams, body: ReactionBody },
      responses: {
        200: { description: 'The message', schema: ChatMessageRecord },
        404: { description: missing },
      },
      handler: async ({ params, body }, req) =>
        toChatMessageRecord(
          await rooms.react(
            await actor(req, params),
            params.roomId,
            params.messageId,
            body.reaction,
          ),
        ),
    }),
  ];
}
