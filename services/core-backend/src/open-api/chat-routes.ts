/**
 * The OpenAI-compatible endpoints of seed E, outside `/v1`: `GET /open-api/models` and
 * `POST /open-api/chat/completions`, authenticated by a workspace's app key, answering what the
 * official `openai` SDKs expect. Answers use the workspace's knowledge and are stored in the
 * chat history of the session named by `X-SESSION-ID` (a new session when absent; its id comes
 * back in the `X-SESSION-ID` answer header), so the history endpoint sees them.
 *
 * An app key acts as the member who made it: it uses the knowledge they may use, and stops
 * working for chat when they leave the workspace or lose the `chat` permission.
 */
import {
  clientGoneSignal,
  defineRoute,
  type HttpError,
  storedText,
  toHttpError,
  type RouteDefinition,
} from '@pelita/kit';
import { z } from 'zod';
import type { AppKeys } from '../app-keys/app-keys';
import { appKeyOf, requireAppKey } from '../app-keys/require-app-key';
import type { OpenApi } from './open-api';

/** OpenAI's error shape, for every answer of these two endpoints. */
const OpenAiError = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});

function openAiError(err: HttpError): z.infer<typeof OpenAiError> {
  const type =
    err.status === 401 || err.status === 403
      ? 'authentication_error'
      : err.status === 404
        ? 'not_found_error'
        : err.status < 500
          ? 'invalid_request_error'
          : 'api_error';
  const param = err.details?.[0]?.path ?? null;
  return { error: { message: err.message, type, param: param || null, code: err.code } };
}
const errors = { body: openAiError, schema: OpenAiError };

const Content = z.union([
  storedText(),
  z.array(z.object({ type: z.literal('text'), text: storedText() }).loose()),
]);
const ChatCompletionBody = z
  .object({
    model: z.string().min(1).max(200),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'developer', 'user', 'assistant']),
            content: Content,
          })
          .loose(),
      )
      .min(1)
      .max(500),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
  })
  // Other fields of OpenAI's API (top_p, max_tokens, user, ...) are accepted and not used.
  .loose();

const Model = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
});
const ModelList = z.object({ object: z.literal('list'), data: z.array(Model) });
const Completion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal('assistant'), content: z.string() }),
      finish_reason: z.string(),
    }),
  ),
  usage: z
    .object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    })
    .optional(),
});
const SessionHeaders = z.object({ 'x-session-id': storedText().min(1).max(200).optional() });

export interface OpenApiRouteDeps {
  /** Verifies the key of a request (`requireAppKey`). */
  appKeys: Pick<AppKeys, 'verify'>;
  openApi: OpenApi;
}

const text = (content: z.infer<typeof Content>) =>
  typeof content === 'string' ? content : content.map((part) => part.text).join('');

export function openApiChatRoutes(deps: OpenApiRouteDeps): RouteDefinition[] {
  const tags = ['open api'];
  const guard = requireAppKey(deps.appKeys);

  return [
    defineRoute({
      method: 'get',
      path: '/open-api/models',
      summary: "The models of the key's workspace (OpenAI's models list)",
      tags,
      public: true,
      before: [guard],
      errors,
      responses: {
        200: { description: 'Models', schema: ModelList },
        403: { description: 'Invalid application key', schema: OpenAiError },
      },
      handler: async (_input, _req, res) => {
        const key = appKeyOf(res.locals);
        const created = Math.floor(key.createdAt.getTime() / 1000);
        const ids = await deps.openApi.models(key);
        return {
          object: 'list',
          data: ids.map((id) => ({ id, object: 'model', created, owned_by: 'pelita' })),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/open-api/chat/completions',
      summary: "Chat completion over the key's workspace knowledge (OpenAI's API)",
      description:
        'Non-streaming, or `stream: true` as server-sent `chat.completion.chunk` events (the first with `delta.role`, the last with `finish_reason`, a usage chunk with `choices: []` when `stream_options.include_usage`, then `data: [DONE]`). The last message must be the user\'s question; earlier messages, when sent, are the conversation so far (else the session\'s last stored exchanges are). A failure after the stream began is one `data: {"error": ...}` event before the stream ends; the partial answer is stored as such.',
      tags,
      public: true,
      before: [guard],
      errors,
      request: { body: ChatCompletionBody, headers: SessionHeaders },
      responses: {
        200: { description: 'The completion (or an event stream of chunks)', schema: Completion },
        403: { description: 'Invalid application key', schema: OpenAiError },
        404: { description: 'No such model in the workspace', schema: OpenAiError },
        502: { description: 'The model answered with an error', schema: OpenAiError },
        503: { description: 'The model server is unreachable or busy', schema: OpenAiError },
        504: { description: 'The model did not answer in time', schema: OpenAiError },
      },
      handler: async ({ body, headers }, _req, res) => {
        // Before any wait: a client that leaves meanwhile must still end the answer.
        const signal = clientGoneSignal(res);
        const started = await deps.openApi.complete(
          appKeyOf(res.locals),
          {
            model: body.model,
            messages: body.messages.map((m) => ({ role: m.role, content: text(m.content) })),
            ...(body.temperature != null ? { temperature: body.temperature } : {}),
            ...(headers['x-session-id'] ? { sessionId: headers['x-session-id'] } : {}),
          },
          { signal, opened: (sessionId) => res.setHeader('x-session-id', sessionId) },
        );
        const id = `chatcmpl-${started.message.id}`;
        const created = Math.floor(started.message.createdAt.getTime() / 1000);

        if (!body.stream) {
          let content = '';
          for await (const delta of started.deltas) content += delta;
          const { usage } = await started.finished();
          return {
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            ...(usage ? { usage } : {}),
          };
        }

        res.status(200);
        res.setHeader('content-type', 'text/event-stream; charset=utf-8');
        res.setHeader('cache-control', 'no-cache, no-transform');
        res.setHeader('x-accel-buffering', 'no');
        res.flushHeaders();
        const send = (data: unknown) => {
          if (!res.writableEnded) res.write(`data: ${JSON.stringify(data)}\n\n`);
        };
        const chunk = (delta: object, finishReason: string | null) =>
          send({
            id,
            object: 'chat.completion.chunk',
            created,
            model: body.model,
            choices: [{ index: 0, delta, finish_reason: finishReason }],
          });
        try {
          chunk({ role: 'assistant', content: '' }, null);
          for await (const delta of started.deltas) chunk({ content: delta }, null);
          const { usage } = await started.finished();
          chunk({}, 'stop');
          if (body.stream_options?.include_usage && usage) {
            send({
              id,
              object: 'chat.completion.chunk',
              created,
              model: body.model,
              choices: [],
              usage,
            });
          }
          if (!res.writableEnded) res.write('data: [DONE]\n\n');
        } catch (err) {
          send(openAiError(toHttpError(err)));
        } finally {
          if (!res.writableEnded) res.end();
        }
      },
    }),
  ];
}
