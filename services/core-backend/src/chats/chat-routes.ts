/**
 * Asking in a room: `POST .../rooms/:roomId/messages` answers as server-sent events, and
 * `PUT .../messages/:messageId` edits a question and asks it again (the later messages of the
 * room go: the conversation continues from the edited question).
 * The events are `answer-events.ts`'s.
 */
import { clientGoneSignal, defineRoute, type RouteDefinition } from '@pelita/kit';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { Rooms } from './rooms';
import { MessageParams, QuestionBody, RoomParams } from './schemas';
import { answerErrorsDoc, answerEventsDoc, streamAnswer } from './answer-events';

export function chatRoutes(deps: { rooms: Rooms; callerOf: CallerOf }): RouteDefinition[] {
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
        const signal = clientGoneSignal(res);
        const actor = await actorOf(deps.callerOf, req, params.workspaceId);
        await streamAnswer(await deps.rooms.ask(actor, params.roomId, body.chat, signal), res);
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
        const signal = clientGoneSignal(res);
        const actor = await actorOf(deps.callerOf, req, params.workspaceId);
        const started = await deps.rooms.askAgain(
          actor,
          params.roomId,
          params.messageId,
          body.chat,
          signal,
        );
        await streamAnswer(started, res);
      },
    }),
  ];
}
