/**
 * Asking in a room: `POST .../rooms/:roomId/messages` answers as server-sent events, and
 * `PUT .../messages/:messageId` edits a question and asks it again (the later messages of the
 * room go: the conversation continues from the edited question).
 * The events are `answer-events.ts`'s.
 */
import { defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { AnswerPipeline } from './answer-pipeline';
import type { ChatStore } from './chat-store';
import type { Rooms } from './rooms';
import { MessageParams, QuestionBody, RoomParams } from './schemas';
import type { Workspaces } from '../workspaces/workspaces';
import { answerErrorsDoc, answerEventsDoc, streamAnswer } from './answer-events';

export interface ChatRouteDeps {
  workspaces: Workspaces;
  chats: ChatStore;
  rooms: Rooms;
  answers: AnswerPipeline;
  callerOf: CallerOf;
}

export function chatRoutes(deps: ChatRouteDeps): RouteDefinition[] {
  const tags = ['rooms'];
  const errors = {
    404: { description: 'No such workspace or room (or not yours)' },
    ...answerErrorsDoc,
  };

  return [
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages',
      summary: 'Ask in a room; the answer streams as server-sent events',
      tags,
      request: { params: RoomParams, body: QuestionBody },
      responses: { 200: answerEventsDoc, ...errors },
      handler: async ({ params, body }, req, res) => {
        const { member, room } = await deps.rooms.open(
          await actorOf(deps.callerOf, req, params.workspaceId),
          params.roomId,
        );
        await streamAnswer(deps, member, room, body.chat, res);
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages/:messageId',
      summary: 'Edit a question and ask again (later messages of the room are removed)',
      tags,
      request: { params: MessageParams, body: QuestionBody },
      responses: { 200: answerEventsDoc, ...errors },
      handler: async ({ params, body }, req, res) => {
        const { member, room } = await deps.rooms.reopenFrom(
          await actorOf(deps.callerOf, req, params.workspaceId),
          params.roomId,
          params.messageId,
        );
        await streamAnswer(deps, member, room, body.chat, res);
      },
    }),
  ];
}
