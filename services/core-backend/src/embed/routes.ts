/**
 * The embedded chat widget's chat: `POST /embed/:iframeId/messages` asks (the answer streams as
 * `answer-events.ts`' events) and `GET /embed/:iframeId/messages` reads a visitor's
 * conversation. Public, like any website chat: the widget's app key stays on the server and the
 * answers use only the key's sources, within what its maker may still use (`appKeys.principal`);
 * visitors see the titles of the passages used, their text only when the widget allows it.
 *
 * A visitor's conversation is a session of the key (`X-SESSION-ID`, issued on the first
 * question and kept by the page), named `embed:<iframeId>:<session>`: a visitor reaches only
 * widget sessions, never a session a program opened through the open API, while the
 * workspace's programs can export widget conversations through the history open API.
 */
import { defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AppKeys } from '../app-keys/app-keys';
import type { AnswerPipeline } from '../chats/answer-pipeline';
import type { ChatStore } from '../chats/chat-store';
import type { KeySessions } from '../chats/key-sessions';
import { ChatMessageRecord, QuestionBody, toChatMessageRecord } from '../chats/schemas';
import type { Iframes, Widget } from '../workspace-config/iframes';
import type { VisitorLimit } from '../workspace-config/widget-visitor-limit';
import type { Workspaces } from '../workspaces/workspaces';
import { answerErrorsDoc, answerEventsDoc, streamAnswer } from '../chats/answer-events';

/** The most recent messages a visitor's page shows. */
const HISTORY_LIMIT = 50;

const WidgetParams = z.object({ iframeId: z.uuid() });
const VisitorSession = z
  .string()
  .regex(/^[A-Za-z0-9_-]{22,64}$/, 'a session id the widget was given');
const AskHeaders = z.object({ 'x-session-id': VisitorSession.optional() });
const HistoryHeaders = z.object({ 'x-session-id': VisitorSession });
const VisitorHistory = z.object({ data: z.array(ChatMessageRecord), total: z.number().int() });

export interface EmbedDeps {
  iframes: Iframes;
  appKeys: AppKeys;
  keySessions: KeySessions;
  workspaces: Workspaces;
  chats: ChatStore;
  answers: AnswerPipeline;
  visitorLimit: VisitorLimit;
}

export function embedRoutes(deps: EmbedDeps): RouteDefinition[] {
  const tags = ['widget'];
  const unavailable = { description: 'No such widget, or it is disabled or its key revoked' };
  const sessionOf = (widget: Widget, session: string) => `embed:${widget.id}:${session}`;

  /** Who the widget acts as: its key's scope; a widget whose maker can no longer chat is gone. */
  const actingAs = (widget: Widget) =>
    deps.appKeys.principal(
      { id: widget.appKeyId, workspaceId: widget.workspaceId, createdBy: widget.actingUserId },
      {
        permission: 'chat',
        refused: () =>
          new HttpError(404, 'iframe_not_found', `The iframe ${widget.id} does not exist`),
      },
    );

  return [
    defineRoute({
      method: 'post',
      path: '/embed/:iframeId/messages',
      summary: "Ask the widget's assistant; the answer streams as server-sent events",
      description:
        'Without `X-SESSION-ID` a new conversation starts; its id comes back in the `X-SESSION-ID` answer header, for the next questions and for reading it back. 429 with `Retry-After` past EMBED_RATE_LIMIT questions per window from one address.',
      tags,
      public: true,
      request: { params: WidgetParams, headers: AskHeaders, body: QuestionBody },
      responses: {
        200: answerEventsDoc,
        404: unavailable,
        429: { description: 'Too many questions from this address' },
        ...answerErrorsDoc,
      },
      handler: async ({ params, headers, body }, req, res) => {
        const widget = await deps.iframes.widget(params.iframeId);
        const member = await actingAs(widget);
        const retryAfter = await deps.visitorLimit(widget.id, req.ip ?? 'unknown');
        if (retryAfter !== undefined) {
          res.setHeader('Retry-After', String(retryAfter));
          throw new HttpError(429, 'too_many_questions', 'Too many questions; try again later');
        }
        const session = headers['x-session-id'] ?? randomBytes(16).toString('base64url');
        const room = await deps.chats.sessionRoom(
          widget.workspaceId,
          sessionOf(widget, session),
          widget.appKeyId,
        );
        res.setHeader('x-session-id', session);
        await streamAnswer(deps, member, room, body.chat, res, {
          passageText: widget.showPassages,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/embed/:iframeId/messages',
      summary: "A visitor's conversation with the widget, newest first",
      tags,
      public: true,
      request: { params: WidgetParams, headers: HistoryHeaders },
      responses: {
        200: { description: 'The latest messages', schema: VisitorHistory },
        404: unavailable,
      },
      handler: async ({ params, headers }) => {
        const widget = await deps.iframes.widget(params.iframeId);
        const room = await deps.keySessions.readable(
          { id: widget.appKeyId, workspaceId: widget.workspaceId, readsSessionsOf: [] },
          await actingAs(widget),
          sessionOf(widget, headers['x-session-id']),
        );
        if (!room) return { data: [], total: 0 };
        const messages = await deps.chats.page(room, 1, HISTORY_LIMIT);
        return { data: messages.map(toChatMessageRecord), total: room.messageCount };
      },
    }),
  ];
}
