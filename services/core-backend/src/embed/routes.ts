/**
 * The embedded chat widget's chat: `POST /embed/:iframeId/messages` asks (the answer streams as
 * `answer-events.ts`' events) and `GET /embed/:iframeId/messages` reads a visitor's
 * conversation. Public, like any website chat: the widget's app key stays on the server and the
 * answers use only the key's sources, within what its maker may still use (`widget-chat.ts`
 * decides); visitors see the titles of the passages used, their text only when the widget
 * allows it.
 *
 * A visitor's conversation is a session of the key (`X-SESSION-ID`, issued on the first
 * question and kept by the page); the workspace's programs can export widget conversations
 * through the history open API.
 */
import { clientGoneSignal, defineRoute, HttpError, type RouteDefinition } from '@pelita/kit';
import { z } from 'zod';
import { ChatMessageRecord, QuestionBody, toChatMessageRecord } from '../chats/schemas';
import { answerErrorsDoc, answerEventsDoc, streamAnswer } from '../chats/answer-events';
import type { WidgetChat } from './widget-chat';

const WidgetParams = z.object({ iframeId: z.uuid() });
const VisitorSession = z
  .string()
  .regex(/^[A-Za-z0-9_-]{22,64}$/, 'a session id the widget was given');
const AskHeaders = z.object({ 'x-session-id': VisitorSession.optional() });
const HistoryHeaders = z.object({ 'x-session-id': VisitorSession });
const VisitorHistory = z.object({ data: z.array(ChatMessageRecord), total: z.number().int() });

export function embedRoutes(deps: { widgetChat: WidgetChat }): RouteDefinition[] {
  const tags = ['widget'];
  const unavailable = { description: 'No such widget, or it is disabled or its key revoked' };

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
        const answer = await deps.widgetChat.ask(
          {
            iframeId: params.iframeId,
            address: req.ip ?? 'unknown',
            ...(headers['x-session-id'] ? { session: headers['x-session-id'] } : {}),
          },
          body.chat,
          {
            signal: clientGoneSignal(res),
            opened: (session) => res.setHeader('x-session-id', session),
          },
        );
        if ('retryAfter' in answer) {
          res.setHeader('Retry-After', String(answer.retryAfter));
          throw new HttpError(429, 'too_many_questions', 'Too many questions; try again later');
        }
        await streamAnswer(answer.started, res, { passageText: answer.passageText });
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
        const { messages, total } = await deps.widgetChat.history({
          iframeId: params.iframeId,
          session: headers['x-session-id'],
        });
        return { data: messages.map(toChatMessageRecord), total };
      },
    }),
  ];
}
