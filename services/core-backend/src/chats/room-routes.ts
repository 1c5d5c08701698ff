/**
 * /api/workspaces/:id/rooms: a user's chat rooms and their messages. Rooms are private to their
 * user: anyone else, owners included, is told the room does not exist. Needs `chat`.
 */
import { itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import type { CallerOf } from '../workspaces/caller';
import { sentFields, workspaceResource } from '../workspaces/collection-routes';
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
import { Paging } from '../http-schemas';

export interface RoomDeps {
  rooms: Rooms;
  callerOf: CallerOf;
}

export function roomRoutes(deps: RoomDeps): RouteDefinition[] {
  const { rooms } = deps;
  const tags = ['rooms'];
  const missing = 'No such workspace or room (or not yours)';
  const badSource = { 400: 'A source the caller may not use' };

  const message = workspaceResource(deps.callerOf, {
    segment: 'rooms/:roomId/messages',
    tags,
    params: MessageParams,
    collection: RoomParams,
    one: { description: 'The message', schema: ChatMessageRecord, from: toChatMessageRecord },
    missing,
  });
  return [
    ...resourceRoutes(
      workspaceResource(deps.callerOf, {
        segment: 'rooms',
        params: RoomParams,
        one: { description: 'The room', schema: RoomResponse, from: toRoomResponse },
        missing,
      }),
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
            rooms.update(
              caller,
              roomId,
              sentFields(body, {
                name: 'name',
                knowledge_sources: 'knowledgeSources',
                model: 'model',
              }),
            ),
          answers: badSource,
        },
        remove: {
          summary: 'Delete a room and its messages',
          run: (caller, { roomId }) => rooms.remove(caller, roomId),
        },
      },
    ),
    ...resourceRoutes(message, {
      list: {
        summary: "The room's messages, newest first",
        page: { description: 'A page of messages', schema: MessageList },
        query: Paging,
        run: async (caller, query, { roomId }) => {
          const { room, messages } = await rooms.messages(caller, roomId, query.page, query.limit);
          return { rows: messages, total: room.messageCount };
        },
      },
      remove: {
        summary: 'Delete a message',
        run: (caller, { roomId, messageId }) => rooms.deleteMessage(caller, roomId, messageId),
      },
    }),
    itemRoute(message, {
      method: 'put',
      path: '/reaction',
      summary: 'Like or dislike an answer (each replaces the other), or take it back (null)',
      body: ReactionBody,
      answer: { description: 'The message', schema: ChatMessageRecord },
      run: async (caller, { roomId, messageId }, { body }) =>
        toChatMessageRecord(await rooms.react(caller, roomId, messageId, body.reaction)),
    }),
  ];
}
