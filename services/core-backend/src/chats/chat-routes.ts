/**
 * Asking in a room: `POST .../rooms/:roomId/messages` answers as server-sent events, and
 * `PUT .../messages/:messageId` edits a question and asks it again (the later messages of the
 * room go: the conversation continues from the edited question).
 * The events are `answer-events.ts`'s.
 */
import { clientGoneSignal, defineRoute, type RouteDefinition } from '@pelita/kit';
import type { z } from 'zod';
import type { Actor } from '../workspaces/actor';
import { actorOf, type CallerOf } from '../workspaces/caller';
import type { StartedAnswer } from './answer-pipeline';
import type { Rooms } from './rooms';
import { MessageParams, QuestionBody, RoomParams } from './schemas';
import { answerErrorsDoc, answerEventsDoc, streamAnswer } from './answer-events';

export function chatRoutes(deps: { rooms: Rooms; callerOf: CallerOf }): RouteDefinition[] {
  const { rooms } = deps;
  const path = '/api/workspaces/:workspaceId/rooms/:roomId/messages';

  /** A route whose answer is one question's, streamed. */
  const answerRoute = <P extends typeof RoomParams>(route: {
    method: 'post' | 'put';
    path: string;
    summary: string;
    params: P;
    ask: (
      actor: Actor,
      params: z.output<P>,
      question: string,
      signal: AbortSignal,
    ) => Promise<StartedAnswer>;
  }) =>
    defineRoute({
      method: route.method,
      path: route.path,
      summary: route.summary,
      tags: ['rooms'],
      request: { params: route.params, body: QuestionBody },
      responses: {
        200: answerEventsDoc,
        404: { description: 'No such workspace or room (or not yours)' },
        ...answerErrorsDoc,
      },
      handler: async ({ params, body }, req, res) => {
        const signal = clientGoneSignal(res);
        const actor = await actorOf(deps.callerOf, req, params.workspaceId);
        const parsed = params as z.output<P>;
        await streamAnswer(await route.ask(actor, parsed, body.chat, signal), res);
      },
    });

  return [
    answerRoute({
      method: 'post',
      path,
      summary: 'Ask in a room; the answer streams as server-sent events',
      params: RoomParams,
      ask: (actor, { roomId }, question, signal) => rooms.ask(actor, roomId, question, signal),
    }),
    answerRoute({
      method: 'put',
      path: `${path}/:messageId`,
      summary: 'Edit a question and ask again (later messages of the room are removed)',
      params: MessageParams,
      ask: (actor, { roomId, messageId }, question, signal) =>
        rooms.askAgain(actor, roomId, messageId, question, signal),
    }),
  ];
}
