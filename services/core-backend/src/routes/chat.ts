/**
 * Asking in a room: `POST .../rooms/:roomId/messages` answers as server-sent events, and
 * `PUT .../messages/:messageId` edits a question and asks it again (the later messages of the
 * room go: the conversation continues from the edited question).
 *
 * Events: `sources` (the passages used), `token` (`{text}` per delta), then `done` (the stored
 * chat message record) or `error` (`{code, message}`; the partial answer is stored as such).
 * A model that cannot start answers 502/503/504 as JSON before any event.
 */
import {
  clientGoneSignal,
  defineRoute,
  storedText,
  toHttpError,
  type RouteDefinition,
} from '@pelita/kit';
import type { Response } from 'express';
import { z } from 'zod';
import type { CallerOf } from '../caller';
import type { AnswerPipeline } from '../chats/answer-pipeline';
import type { ChatStore, Room } from '../chats/chat-store';
import { openEventStream } from '../chats/event-stream';
import { MessageParams, RoomParams, toChatMessageRecord } from '../schemas/chats';
import type { Hit } from '../retrieval/knowledge-index';
import type { Membership, Workspaces } from '../workspaces/workspaces';

/** How long a question may be (characters). */
const QUESTION_MAX = 20_000;
const QuestionBody = z.object({ chat: storedText().trim().min(1).max(QUESTION_MAX) });

const eventsDoc = {
  description:
    'text/event-stream: `sources`, `token` ({text}) events, then `done` (the chat message record) or `error` ({code, message})',
  contentType: 'text/event-stream',
  schema: z.string(),
};

export interface ChatRouteDeps {
  workspaces: Workspaces;
  chats: ChatStore;
  answers: AnswerPipeline;
  callerOf: CallerOf;
}

export function chatRoutes(deps: ChatRouteDeps): RouteDefinition[] {
  const tags = ['rooms'];
  const errors = {
    404: { description: 'No such workspace or room (or not yours)' },
    502: { description: 'The model answered with an error' },
    503: { description: 'The model server is unreachable or busy' },
    504: { description: 'The model did not answer in time' },
  };

  async function answer(member: Membership, room: Room, question: string, res: Response) {
    const workspace = await deps.workspaces.get(member.workspaceId);
    const signal = clientGoneSignal(res);
    const started = await deps.answers.start({
      member,
      settings: workspace.settings,
      room,
      question,
      signal,
    });
    const events = openEventStream(res);
    events.send('sources', started.sources.map(toSource));
    try {
      for await (const text of started.deltas) events.send('token', { text });
      const { message } = await started.finished();
      events.send('done', toChatMessageRecord(message));
    } catch (err) {
      const failure = toHttpError(err);
      events.send('error', { code: failure.code, message: failure.message });
    } finally {
      events.end();
    }
  }

  return [
    defineRoute({
      method: 'post',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages',
      summary: 'Ask in a room; the answer streams as server-sent events',
      tags,
      request: { params: RoomParams, body: QuestionBody },
      responses: { 200: eventsDoc, ...errors },
      handler: async ({ params, body }, req, res) => {
        const member = await deps.workspaces.access(
          params.workspaceId,
          (await deps.callerOf(req)).id,
          'chat',
        );
        const room = await deps.chats.room(params.workspaceId, member.userId, params.roomId);
        await answer(member, room, body.chat, res);
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/workspaces/:workspaceId/rooms/:roomId/messages/:messageId',
      summary: 'Edit a question and ask again (later messages of the room are removed)',
      tags,
      request: { params: MessageParams, body: QuestionBody },
      responses: { 200: eventsDoc, ...errors },
      handler: async ({ params, body }, req, res) => {
        const member = await deps.workspaces.access(
          params.workspaceId,
          (await deps.callerOf(req)).id,
          'chat',
        );
        const room = await deps.chats.room(params.workspaceId, member.userId, params.roomId);
        await deps.chats.truncateFrom(room, params.messageId);
        await answer(member, room, body.chat, res);
      },
    }),
  ];
}

/** A passage as the browser shows it under the answer. */
function toSource(hit: Hit) {
  return {
    type: hit.resourceType,
    id: hit.resourceId,
    title: hit.title,
    kind: hit.kind,
    position: hit.position,
    text: hit.text,
    score: hit.score,
  };
}
