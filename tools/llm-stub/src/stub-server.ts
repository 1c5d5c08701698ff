/**
 * The HTTP server of the stand-in: `/v1/models`, `/v1/embeddings`, `/v1/audio/transcriptions`,
 * `/v1/chat/completions` (streaming and not),
 * and a control API under `/_stub/` (statistics, faults, options) for tests and benchmarks run
 * against a separate process.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@pelita/kit';
import { z } from 'zod';
import { DEFAULT_DIMENSIONS, embed, toBase64 } from './embeddings';
import {
  ResponseFormatSchema,
  STRUCTURED_OUTPUT_SUPPORT,
  conformToSchema,
  refusalOf,
  type StructuredOutputSupport,
} from './structured-output';
import { tokenCount, wordsOf } from './text-features';
import { transcribe } from './transcription';
import {
  asksForJson,
  buildAnswer,
  promptOf,
  usageOf,
  type AnswerKey,
  type ChatMessage,
  type SummaryMode,
} from './answer';
import {
  FaultRuleSchema,
  FaultScript,
  distortAnswer,
  distortProse,
  ruleFromJson,
  type FaultRule,
} from './faults';

export interface LlmStubOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Model ids listed and accepted; the first is the default. */
  models?: string[];
  /** Reported as `max_model_len` in the model list (vLLM's field); null leaves it out. */
  maxModelLen?: number | null;
  /** Base latency of every chat completion, in ms (default 0). */
  latencyMs?: number;
  /** `shrink` (default): summaries are the leading sentences; `echo`: the whole input. */
  summaryMode?: SummaryMode;
  /** Share of the words a shrinking summary keeps (default 0.25). */
  shrinkFraction?: number;
  /** Report `usage` in answers (default true). */
  includeUsage?: boolean;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /**
   * What `response_format` does (default `honour`): `honour` enforces it, `ignore` accepts and
   * ignores it, `json_object` refuses json_schema, `none` refuses any (see structured-output.ts).
   */
  structuredOutput?: StructuredOutputSupport;
  /**
   * Refuse (400) a request whose instructions ask for JSON without sending a json_schema
   * `response_format` (default false): proves a caller sends the schema on every such call.
   */
  requireSchema?: boolean;
  faults?: FaultRule[];
  /** Seed of the generator that decides `rate` rules (default 1). */
  seed?: number;
}

export interface RecordedCall {
  model: string;
  stream: boolean;
  /** Every message content joined by newlines. */
  prompt: string;
  /** The text the answer was derived from. */
  document: string;
  /** The JSON keys the instructions asked for. */
  asked: AnswerKey[];
  faults: string[];
  /** HTTP status sent; 0 when the connection was closed without an answer. */
  status: number;
  /** Whether an `Authorization` header came with the request. */
  authorization: boolean;
  /** When the request arrived and when its answer was complete (ms since the epoch). */
  receivedAt: number;
  answeredAt: number | undefined;
  /** The usage figures of the answer (also when they were not sent). */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
  /** `response_format.type` sent (undefined: none). */
  responseFormat: 'text' | 'json_object' | 'json_schema' | undefined;
  /** The json_schema sent: its name, schema and `strict`. */
  jsonSchema: { name: string; schema: Record<string, unknown>; strict: boolean } | undefined;
  /** `max_tokens` (or `max_completion_tokens`) sent. */
  maxTokens: number | undefined;
  /** `finish_reason` of the answer. */
  finishReason: 'stop' | 'length' | undefined;
}

/** One `/v1/audio/transcriptions` call: what was asked. */
export interface RecordedTranscription {
  model: string;
  fileName: string;
  bytes: number;
  responseFormat: string;
  diarize: boolean;
  suppressNumerals: boolean;
  status: number;
}

export interface StubStats {
  chatCompletions: number;
  modelLists: number;
  /** Calls of `/v1/embeddings` and the texts embedded in them. */
  embeddingCalls: number;
  embeddedTexts: number;
  transcriptions: RecordedTranscription[];
  inFlight: number;
  /** Highest number of chat completions in progress at the same time. */
  peakInFlight: number;
  calls: RecordedCall[];
}

export interface LlmStub {
  /** Base URL for OpenAI clients, ending in `/v1`. */
  url: string;
  port: number;
  stats: () => StubStats;
  resetStats: () => void;
  setFaults: (rules: FaultRule[]) => void;
  configure: (options: Partial<RuntimeOptions>) => void;
  close: () => Promise<void>;
}

type RuntimeOptions = Required<
  Pick<
    LlmStubOptions,
    | 'models'
    | 'maxModelLen'
    | 'latencyMs'
    | 'summaryMode'
    | 'shrinkFraction'
    | 'includeUsage'
    | 'structuredOutput'
    | 'requireSchema'
  >
> & { apiKey: string | undefined };

const OptionsPatchSchema = z
  .object({
    models: z.array(z.string().min(1)).min(1),
    maxModelLen: z.number().int().positive().nullable(),
    latencyMs: z.number().int().min(0),
    summaryMode: z.enum(['shrink', 'echo']),
    shrinkFraction: z.number().gt(0).max(1),
    includeUsage: z.boolean(),
    structuredOutput: z.enum(STRUCTURED_OUTPUT_SUPPORT),
    requireSchema: z.boolean(),
  })
  .partial();

const EmbeddingsRequestSchema = z.object({
  model: z.string().min(1),
  // Token arrays are refused: the stand-in embeds text.
  input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(2048)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().min(1).max(4096).optional(),
});

const ChatRequestSchema = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.unknown() })).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  response_format: z.unknown().optional(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
});

/** Faults a server enforcing a JSON format cannot produce. */
const JSON_BREAKING_FAULTS = new Set(['malformed', 'broken-json', 'think', 'fence']);

const MAX_BODY_BYTES = 256 * 1024 * 1024;

export async function startLlmStub(options: LlmStubOptions = {}): Promise<LlmStub> {
  const runtime: RuntimeOptions = {
    models: options.models ?? ['pelita-stub'],
    maxModelLen: options.maxModelLen === undefined ? 32_768 : options.maxModelLen,
    latencyMs: options.latencyMs ?? 0,
    summaryMode: options.summaryMode ?? 'shrink',
    shrinkFraction: options.shrinkFraction ?? 0.25,
    includeUsage: options.includeUsage ?? true,
    structuredOutput: options.structuredOutput ?? 'honour',
    requireSchema: options.requireSchema ?? false,
    apiKey: options.apiKey,
  };
  const script = new FaultScript(options.faults ?? [], options.seed ?? 1);
  let stats = freshStats();
  let sequence = 0;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      stats.modelLists += 1;
      if (!authorised(req)) return sendError(res, 401, 'Invalid API key', 'AuthenticationError');
      return sendJson(res, 200, { object: 'list', data: runtime.models.map(describeModel) });
    }
    const single = /^\/(?:v1\/)?models\/(.+)$/.exec(path);
    if (req.method === 'GET' && single) {
      const id = decodeURIComponent(single[1] ?? '');
      if (!runtime.models.includes(id)) return modelNotFound(res, id);
      return sendJson(res, 200, describeModel(id));
    }
    if (
      req.method === 'POST' &&
      (path === '/v1/chat/completions' || path === '/chat/completions')
    ) {
      return chatCompletion(req, res);
    }
    if (req.method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings')) {
      return embeddings(req, res);
    }
    if (
      req.method === 'POST' &&
      (path === '/v1/audio/transcriptions' || path === '/audio/transcriptions')
    ) {
      return transcription(req, res);
    }
    if (path.startsWith('/_stub/')) return control(req, res, path);
    return sendError(res, 404, `No route ${req.method} ${path}`, 'NotFoundError');
  }

  function describeModel(id: string) {
    return {
      id,
      object: 'model',
      created: 0,
      owned_by: 'pelita-llm-stub',
      root: id,
      ...(runtime.maxModelLen === null ? {} : { max_model_len: runtime.maxModelLen }),
    };
  }

  function authorised(req: IncomingMessage): boolean {
    return runtime.apiKey === undefined || req.headers.authorization === `Bearer ${runtime.apiKey}`;
  }

  /** OpenAI's embeddings API over {@link embed}; any model the stub serves may embed. */
  async function embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.embeddingCalls += 1;
    const parsed = EmbeddingsRequestSchema.safeParse(await readJson(req).catch(() => undefined));
    if (!parsed.success) {
      return sendError(res, 400, 'Invalid embeddings request', 'BadRequestError');
    }
    if (!authorised(req)) return sendError(res, 401, 'Invalid API key', 'AuthenticationError');
    const request = parsed.data;
    if (!runtime.models.includes(request.model)) return modelNotFound(res, request.model);
    const inputs = typeof request.input === 'string' ? [request.input] : request.input;
    const faults = script.pick(inputs.join('\n'));
    const statusFault = faults.find((fault) => fault.kind === 'status');
    if (statusFault) {
      return sendError(res, statusFault.status, `Scripted fault ${statusFault.status}`, 'APIError');
    }
    const delay = faults.reduce(
      (sum, fault) => sum + (fault.kind === 'latency' ? fault.ms : 0),
      runtime.latencyMs,
    );
    if (delay > 0 && !(await sleepUnlessClosed(delay, res))) return;
    stats.embeddedTexts += inputs.length;
    const tokens = inputs.reduce((sum, text) => sum + wordsOf(text).length, 0);
    sendJson(res, 200, {
      object: 'list',
      data: inputs.map((text, index) => {
        const vector = embed(text, request.dimensions ?? DEFAULT_DIMENSIONS);
        return {
          object: 'embedding',
          index,
          embedding: request.encoding_format === 'base64' ? toBase64(vector) : vector,
        };
      }),
      model: request.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  /**
   * OpenAI's transcription API (multipart `file`, `model`, `response_format` json | text |
   * verbose_json, `language`) with the diarising servers' `diarize` and `suppress_numerals`
   * fields; see `transcription.ts` for what a file "says".
   */
  async function transcription(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req).catch(() => undefined);
    const file = form?.get('file');
    const field = (name: string) => {
      const value = form?.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    const call: RecordedTranscription = {
      model: field('model') ?? '',
      fileName: typeof file === 'object' && file ? file.name : '',
      bytes: typeof file === 'object' && file ? file.size : 0,
      responseFormat: field('response_format') ?? 'json',
      diarize: field('diarize') === 'true',
      suppressNumerals: field('suppress_numerals') === 'true',
      status: 0,
    };
    stats.transcriptions.push(call);
    const refuse = (status: number, message: string, type: string) => {
      call.status = status;
      sendError(res, status, message, type);
    };
    if (!form || typeof file !== 'object' || !file || !call.model) {
      return refuse(400, 'A multipart form with `file` and `model` is required', 'BadRequestError');
    }
    if (!authorised(req)) return refuse(401, 'Invalid API key', 'AuthenticationError');
    if (!runtime.models.includes(call.model)) {
      call.status = 404;
      return modelNotFound(res, call.model);
    }
    const extension = /\.([a-z0-9]+)$/i.exec(call.fileName)?.[1]?.toLowerCase() ?? '';
    if (!AUDIO_EXTENSIONS.includes(extension) || file.size === 0) {
      return refuse(
        400,
        `Invalid file format. Supported formats: ${JSON.stringify(AUDIO_EXTENSIONS)}`,
        'BadRequestError',
      );
    }
    if (!['json', 'text', 'verbose_json'].includes(call.responseFormat)) {
      return refuse(400, `Unsupported response_format ${call.responseFormat}`, 'BadRequestError');
    }
    const faults = script.pick(call.fileName);
    const statusFault = faults.find((fault) => fault.kind === 'status');
    if (statusFault) {
      return refuse(statusFault.status, `Scripted fault ${statusFault.status}`, 'APIError');
    }
    const delay = faults.reduce(
      (sum, fault) => sum + (fault.kind === 'latency' ? fault.ms : 0),
      runtime.latencyMs,
    );
    if (delay > 0 && !(await sleepUnlessClosed(delay, res))) return;
    const language = field('language');
    const transcript = transcribe(Buffer.from(await file.arrayBuffer()), {
      diarize: call.diarize,
      suppressNumerals: call.suppressNumerals,
      ...(language ? { language } : {}),
    });
    call.status = 200;
    if (call.responseFormat === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(transcript.text);
      return;
    }
    if (call.responseFormat === 'json') return sendJson(res, 200, { text: transcript.text });
    sendJson(res, 200, { task: 'transcribe', ...transcript });
  }

  async function chatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.chatCompletions += 1;
    const receivedAt = Date.now();
    const parsed = ChatRequestSchema.safeParse(await readJson(req).catch(() => undefined));
    if (!parsed.success) {
      return sendError(res, 400, 'Invalid chat completion request', 'BadRequestError');
    }
    const request = parsed.data;
    const messages = request.messages as ChatMessage[];
    const call: RecordedCall = {
      model: request.model,
      stream: request.stream === true,
      prompt: promptOf(messages),
      document: '',
      asked: [],
      faults: [],
      status: 0,
      authorization: req.headers.authorization !== undefined,
      receivedAt,
      answeredAt: undefined,
      usage: undefined,
      responseFormat: undefined,
      jsonSchema: undefined,
      maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
      finishReason: undefined,
    };
    stats.calls.push(call);
    const format = ResponseFormatSchema.safeParse(request.response_format);
    if (request.response_format !== undefined && request.response_format !== null) {
      if (!format.success) {
        call.status = 400;
        return sendError(
          res,
          400,
          `Invalid response_format: ${format.error.message}`,
          'BadRequestError',
        );
      }
      call.responseFormat = format.data.type;
      if (format.data.type === 'json_schema') {
        const { name, schema, strict } = format.data.json_schema;
        call.jsonSchema = { name, schema, strict: strict === true };
      }
    }
    const responseFormat = format.success ? format.data : undefined;
    if (!authorised(req)) {
      call.status = 401;
      return sendError(res, 401, 'Invalid API key', 'AuthenticationError');
    }
    if (!runtime.models.includes(request.model)) {
      call.status = 404;
      return modelNotFound(res, request.model);
    }
    if (runtime.requireSchema && responseFormat?.type !== 'json_schema' && asksForJson(messages)) {
      call.status = 400;
      return sendError(
        res,
        400,
        'This stand-in requires response_format json_schema on requests that ask for JSON',
        'BadRequestError',
      );
    }
    const refusal = refusalOf(responseFormat, runtime.structuredOutput);
    if (refusal) {
      call.status = 400;
      return sendError(res, 400, refusal, 'BadRequestError');
    }
    // vLLM's check: the prompt, with the answer asked for (else one token), must fit the context.
    const promptTokens = usageOf(messages, '').prompt_tokens;
    const limit = runtime.maxModelLen;
    const asked = call.maxTokens;
    if (limit !== null && promptTokens + (asked ?? 1) > limit) {
      call.status = 400;
      return sendError(
        res,
        400,
        asked === undefined
          ? `This model's maximum context length is ${limit} tokens. However, your request has ` +
              `${promptTokens} input tokens. Please reduce the length of the input messages.`
          : `This model's maximum context length is ${limit} tokens. However, you requested ` +
              `${promptTokens + asked} tokens (${promptTokens} in the messages, ${asked} in the completion). ` +
              'Please reduce the length of the messages or completion.',
        'BadRequestError',
      );
    }
    const enforced =
      runtime.structuredOutput === 'honour' &&
      responseFormat !== undefined &&
      responseFormat.type !== 'text'
        ? responseFormat
        : undefined;

    stats.inFlight += 1;
    stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
    res.once('close', () => {
      stats.inFlight -= 1;
      call.answeredAt = Date.now();
    });

    const picked = script.pick(call.prompt);
    const faults = enforced
      ? picked.filter((fault) => !JSON_BREAKING_FAULTS.has(fault.kind))
      : picked;
    call.faults = faults.map((fault) => fault.kind);
    const delay = faults.reduce(
      (sum, fault) => sum + (fault.kind === 'latency' ? fault.ms : 0),
      runtime.latencyMs,
    );
    if (delay > 0 && !(await sleepUnlessClosed(delay, res))) return;

    if (faults.some((fault) => fault.kind === 'reset')) {
      req.socket.destroy();
      return;
    }
    const statusFault = faults.find((fault) => fault.kind === 'status');
    if (statusFault) {
      call.status = statusFault.status;
      const headers: Record<string, string> = {};
      if (statusFault.retryAfterSeconds !== undefined) {
        headers['retry-after'] = String(statusFault.retryAfterSeconds);
      }
      if (statusFault.retryAfterMs !== undefined) {
        headers['retry-after-ms'] = String(statusFault.retryAfterMs);
      }
      return sendError(
        res,
        statusFault.status,
        `Scripted fault ${statusFault.status}`,
        'APIError',
        headers,
      );
    }

    const answer = buildAnswer(
      messages,
      runtime,
      faults.some((fault) => fault.kind === 'no-shrink'),
    );
    call.document = answer.document;
    call.asked = answer.asked;
    const json =
      enforced?.type === 'json_schema'
        ? (conformToSchema(
            answer.json ?? proseAsObject(answer.prose, enforced.json_schema.schema),
            enforced.json_schema.schema,
          ) as Record<string, unknown>)
        : answer.json;
    // A prose answer (a planning answer, a chat) can be distorted too: `malformed` makes it
    // unusable, `truncate` cuts it.
    const distorted = json ? distortAnswer(json, faults) : distortProse(answer.prose, faults);
    const capped = capTokens(distorted.content, call.maxTokens);
    const content = capped.content;
    const finishReason = distorted.truncated || capped.cut ? 'length' : 'stop';
    call.finishReason = finishReason;
    const usage = usageOf(messages, content);
    call.usage = usage;
    sequence += 1;
    const id = `chatcmpl-stub-${sequence}`;
    const created = Math.floor(Date.now() / 1000);
    call.status = 200;

    if (request.stream) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const event = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices, ...extra })}\n\n`;
      res.write(
        event([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
      );
      const streamBreak = faults.find((fault) => fault.kind === 'stream-break');
      for (let at = 0, sent = 0; at < content.length; at += 64, sent += 1) {
        if (streamBreak && sent === streamBreak.afterChunks) break;
        res.write(
          event([
            { index: 0, delta: { content: content.slice(at, at + 64) }, finish_reason: null },
          ]),
        );
      }
      if (streamBreak) {
        if (await sleepUnlessClosed(streamBreak.pauseMs, res)) req.socket.destroy();
        return;
      }
      res.write(event([{ index: 0, delta: {}, finish_reason: finishReason }]));
      if (runtime.includeUsage && request.stream_options?.include_usage) {
        res.write(event([], { usage }));
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content },
          finish_reason: finishReason,
          logprobs: null,
        },
      ],
      ...(runtime.includeUsage ? { usage } : {}),
    });
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === 'GET' && path === '/_stub/stats') return sendJson(res, 200, stats);
    if (req.method === 'POST' && path === '/_stub/reset') {
      stats = freshStats(stats.inFlight);
      return sendJson(res, 200, { reset: true });
    }
    if (req.method === 'PUT' && path === '/_stub/faults') {
      const body = z
        .object({ faults: z.array(FaultRuleSchema) })
        .safeParse(await readJson(req).catch(() => undefined));
      if (!body.success) return sendError(res, 400, body.error.message, 'BadRequestError');
      script.set(body.data.faults.map(ruleFromJson));
      return sendJson(res, 200, { faults: body.data.faults.length });
    }
    if (req.method === 'PUT' && path === '/_stub/options') {
      const body = OptionsPatchSchema.safeParse(await readJson(req).catch(() => undefined));
      if (!body.success) return sendError(res, 400, body.error.message, 'BadRequestError');
      Object.assign(runtime, body.data);
      return sendJson(res, 200, runtime);
    }
    return sendError(res, 404, `No control route ${req.method} ${path}`, 'NotFoundError');
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendError(res, 500, errorMessage(err), 'InternalError');
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';

  return {
    url: `http://${host}:${port}/v1`,
    port,
    stats: () => structuredClone(stats),
    resetStats: () => {
      stats = freshStats(stats.inFlight);
    },
    setFaults: (rules) => script.set(rules),
    configure: (patch) => Object.assign(runtime, patch),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A prose answer under a schema: JSON it already is, or the text in each text field. */
function proseAsObject(prose: string, schema: Record<string, unknown>): unknown {
  try {
    const parsed: unknown = JSON.parse(prose);
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  } catch {
    // prose: below
  }
  const properties = (schema.properties as Record<string, { type?: unknown }> | undefined) ?? {};
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, sub]) => sub.type === 'string')
      .map(([key]) => [key, prose]),
  );
}

/** The longest start of the content within `maxTokens`, as a server stops at `max_tokens`. */
function capTokens(
  content: string,
  maxTokens: number | undefined,
): { content: string; cut: boolean } {
  if (maxTokens === undefined || tokenCount(content) <= maxTokens) return { content, cut: false };
  let low = 0;
  let high = content.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tokenCount(content.slice(0, middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return { content: content.slice(0, low), cut: true };
}

function freshStats(inFlight = 0): StubStats {
  return {
    chatCompletions: 0,
    modelLists: 0,
    embeddingCalls: 0,
    embeddedTexts: 0,
    transcriptions: [],
    inFlight,
    peakInFlight: inFlight,
    calls: [],
  };
}

function modelNotFound(res: ServerResponse, model: string): void {
  sendError(res, 404, `The model \`${model}\` does not exist.`, 'NotFoundError');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type, param: null, code: status } }, headers);
}

const AUDIO_EXTENSIONS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];

/** A multipart form, parsed by the fetch API's own parser. */
async function readForm(req: IncomingMessage): Promise<FormData> {
  const body = await readBody(req);
  return new Response(body, {
    headers: { 'content-type': req.headers['content-type'] ?? '' },
  }).formData();
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  return JSON.parse((await readBody(req)).toString('utf8')) as unknown;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    parts.push(part);
  }
  return Buffer.concat(parts);
}

/** Waits `ms`; resolves false when the client went away meanwhile. */
function sleepUnlessClosed(ms: number, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}
