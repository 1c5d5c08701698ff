/**
 * The OpenAI-compatible HTTP side of the local model: `GET /v1/models`, `POST
 * /v1/chat/completions` (whole or streamed as `chat.completion.chunk` events ending in `data:
 * [DONE]`, a usage chunk first when `stream_options.include_usage`), `GET /health`, under `/v1`
 * for chats and under `/background/v1` for work nobody watches (summaries): each lane answers one
 * request at a time on its own context, the others wait their turn in arrival order, and the
 * two lanes run side by side (`lanes.ts`). A client that leaves stops its answer. A prompt the
 * context cannot hold is refused with vLLM's 400. `response_format` is enforced while the answer
 * is generated (node-llama-cpp's grammars): json_schema through its JSON-schema grammar,
 * json_object through its JSON grammar, so such answers always parse (unless cut by `max_tokens`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createConcurrencyLimit } from '@pelita/kit';
import { z } from 'zod';
import { grammarCache } from './grammars';
import type { Lane } from './lanes';
import type { ChatHistoryItem, LoadedModel } from './llama';

export interface ChatServerOptions {
  model: LoadedModel;
  modelId: string;
  maxTokens: number;
  repeatPenalty: number;
}

const Text = z.union([
  z.string(),
  z.array(z.object({ type: z.literal('text'), text: z.string() }).loose()),
]);
const ChatRequest = z.object({
  model: z.string().min(1),
  messages: z
    .array(
      z
        .object({ role: z.enum(['system', 'developer', 'user', 'assistant']), content: Text })
        .loose(),
    )
    .min(1),
  stream: z.boolean().default(false),
  stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  response_format: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z
          .object({ name: z.string().min(1), schema: z.record(z.string(), z.unknown()) })
          .loose(),
      }),
    ])
    .nullish(),
});

const textOf = (content: z.infer<typeof Text>) =>
  typeof content === 'string' ? content : content.map((part) => part.text).join('');

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string, type: string): void {
  sendJson(res, status, { error: { message, type, param: null, code: null } });
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

export function createChatServer(options: ChatServerOptions): Server {
  const { model, modelId } = options;
  const queues: Record<Lane, ReturnType<typeof createConcurrencyLimit>> = {
    chat: createConcurrencyLimit(1),
    background: createConcurrencyLimit(1),
  };
  const created = Math.floor(Date.now() / 1000);
  const grammars = grammarCache(model);

  async function complete(req: IncomingMessage, res: ServerResponse, lane: Lane): Promise<void> {
    let body: z.infer<typeof ChatRequest>;
    try {
      const parsed = ChatRequest.safeParse(await readBody(req));
      if (!parsed.success) {
        return sendError(res, 400, z.prettifyError(parsed.error), 'invalid_request_error');
      }
      body = parsed.data;
    } catch {
      return sendError(res, 400, 'The body is not JSON', 'invalid_request_error');
    }
    if (body.model !== modelId) {
      return sendError(res, 404, `The model \`${body.model}\` does not exist.`, 'NotFoundError');
    }
    const last = body.messages.at(-1)!;
    if (last.role !== 'user') {
      return sendError(res, 400, "The last message must be the user's", 'invalid_request_error');
    }
    const history: ChatHistoryItem[] = body.messages
      .slice(0, -1)
      .map((message) =>
        message.role === 'assistant'
          ? { type: 'model', response: [textOf(message.content)] }
          : message.role === 'user'
            ? { type: 'user', text: textOf(message.content) }
            : { type: 'system', text: textOf(message.content) },
      );
    const question = textOf(last.content);
    const asked = body.max_completion_tokens ?? body.max_tokens ?? undefined;
    // vLLM's refusal of a prompt the context cannot hold (with the answer asked for, when asked):
    // node-llama-cpp would cut it on its own, and `make dev` would hide what a server refuses.
    const promptTokens = body.messages.reduce(
      (sum, message) => sum + model.tokenize(textOf(message.content)).length,
      0,
    );
    if (promptTokens + (asked ?? 1) > model.contextSize) {
      return sendError(
        res,
        400,
        asked === undefined
          ? `This model's maximum context length is ${model.contextSize} tokens. However, your ` +
              `request has ${promptTokens} input tokens. Please reduce the length of the input messages.`
          : `This model's maximum context length is ${model.contextSize} tokens. However, you ` +
              `requested ${promptTokens + asked} tokens (${promptTokens} in the messages, ${asked} ` +
              'in the completion). Please reduce the length of the messages or completion.',
        'invalid_request_error',
      );
    }
    const maxTokens = asked ?? Math.min(options.maxTokens, model.contextSize - promptTokens);
    let grammar;
    try {
      grammar = await grammars.forFormat(body.response_format ?? undefined);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return sendError(
        res,
        400,
        `Unsupported response_format schema: ${reason}`,
        'invalid_request_error',
      );
    }
    const id = `chatcmpl-${randomUUID()}`;
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const chunk = (delta: object, finishReason: string | null, extra: object = {}) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: modelId,
        choices: [{ index: 0, delta, finish_reason: finishReason }],
        ...extra,
      })}\n\n`;

    const oneAtATime = queues[lane];
    const session = model.sessions[lane];
    // A client that left while waiting is dropped from the queue (the run rejects: nothing to send).
    await oneAtATime
      .run(async () => {
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write(chunk({ role: 'assistant', content: '' }, null));
        }
        session.setChatHistory(history);
        const answer = await session.prompt(question, {
          maxTokens,
          temperature: body.temperature ?? 0.7,
          repeatPenalty: { penalty: options.repeatPenalty },
          signal: aborted.signal,
          stopOnAbortSignal: true,
          ...(grammar ? { grammar } : {}),
          ...(body.stream
            ? { onTextChunk: (text: string) => void res.write(chunk({ content: text }, null)) }
            : {}),
        });
        const completionTokens = model.tokenize(answer).length;
        const usage = {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        };
        const finishReason = completionTokens >= maxTokens ? 'length' : 'stop';
        if (!body.stream) {
          return sendJson(res, 200, {
            id,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: modelId,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: answer },
                finish_reason: finishReason,
              },
            ],
            usage,
          });
        }
        res.write(chunk({}, finishReason));
        if (body.stream_options?.include_usage) {
          res.write(
            `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: modelId, choices: [], usage })}\n\n`,
          );
        }
        res.end('data: [DONE]\n\n');
      }, aborted.signal)
      .catch((err: unknown) => {
        if (!aborted.signal.aborted) throw err;
      });
  }

  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local').pathname;
    const lane: Lane = url.startsWith('/background/') ? 'background' : 'chat';
    const path = url.replace(/^\/background(?=\/)/, '').replace(/^\/v1/, '');
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { status: 'OK' });
    if (req.method === 'GET' && path === '/models') {
      return sendJson(res, 200, {
        object: 'list',
        // The context size under vLLM's name, which the platform's services read.
        data: [
          {
            id: modelId,
            object: 'model',
            created,
            owned_by: 'pelita-local-model',
            max_model_len: model.contextSize,
          },
        ],
      });
    }
    if (req.method === 'POST' && path === '/chat/completions') {
      complete(req, res, lane).catch((err: unknown) => {
        if (res.headersSent) return void res.destroy(err as Error);
        sendError(res, 500, err instanceof Error ? err.message : String(err), 'api_error');
      });
      return;
    }
    sendError(res, 404, `No route ${req.method ?? ''} ${path}`, 'not_found_error');
  });
}
