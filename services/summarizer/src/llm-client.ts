/**
 * The only I/O of the summarizer: chat completions and the model list of an OpenAI-compatible
 * server, through the openai SDK. The SDK retries connection errors, time-outs, 408, 409, 429 and
 * 5xx `LLM_MAX_RETRIES` times with its backoff (honouring `retry-after(-ms)`); each HTTP attempt
 * may take `LLM_TIMEOUT`. A retry hint longer than one attempt may take is shortened to it, so a
 * model server asking for an hour's pause cannot hold a request for an hour.
 */
import { contextLengthOf, type Logger, type ResponseFormat } from '@pelita/kit';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CallOperation, SummarizerMetrics } from './summarizer-metrics';

/** Where the model is: read on every call, so a key rotated in the secret store applies at once. */
export interface ModelEndpoint {
  baseUrl: string;
  /** Empty: no `Authorization` header is sent. */
  apiKey: string;
  model: string;
}

export interface ModelClientOptions {
  endpoint: () => ModelEndpoint;
  timeoutMs: number;
  maxRetries: number;
  logger: Logger;
  metrics: SummarizerMetrics;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface Completion {
  content: string;
  finishReason: string | null;
  /** As reported by the server; absent when it reports none. */
  usage: TokenUsage | undefined;
}

export interface ModelInfo {
  id: string;
  /** The context length the server reports (`max_model_len` and its cousins), if any. */
  maxModelLength: number | undefined;
}

export interface CallOptions {
  operation: CallOperation;
  signal?: AbortSignal;
  /** Sent as `response_format` when given (json_schema or json_object). */
  responseFormat?: ResponseFormat;
  /** Sent as `max_tokens` when given. */
  maxTokens?: number;
}

export interface ModelClient {
  readonly model: string;
  readonly baseUrl: string;
  complete(messages: ChatCompletionMessageParam[], options: CallOptions): Promise<Completion>;
  listModels(timeoutMs: number): Promise<ModelInfo[]>;
}

export function createModelClient(options: ModelClientOptions): ModelClient {
  const { metrics, logger } = options;
  const sdkLogger = logger.child({ component: 'openai-sdk' });
  const sdkFor = (endpoint: ModelEndpoint) =>
    new OpenAI({
      baseURL: endpoint.baseUrl,
      // The SDK insists on a key; without one the header is removed below.
      apiKey: endpoint.apiKey === '' ? 'no-key' : endpoint.apiKey,
      ...(endpoint.apiKey === '' ? { defaultHeaders: { Authorization: null } } : {}),
      organization: null,
      project: null,
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
      fetch: observedFetch(metrics, options.timeoutMs),
      logLevel: 'warn',
      logger: {
        error: (message: string) => sdkLogger.error(message),
        warn: (message: string) => sdkLogger.warn(message),
        info: (message: string) => sdkLogger.info(message),
        debug: (message: string) => sdkLogger.debug(message),
      },
    });
  // One SDK client while the server and key stay the same (it keeps the connections).
  let current: { baseUrl: string; apiKey: string; sdk: OpenAI } | undefined;
  const client = () => {
    const endpoint = options.endpoint();
    if (current?.baseUrl !== endpoint.baseUrl || current.apiKey !== endpoint.apiKey) {
      current = { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey, sdk: sdkFor(endpoint) };
    }
    return { sdk: current.sdk, model: endpoint.model };
  };

  return {
    get model() {
      return options.endpoint().model;
    },
    get baseUrl() {
      return options.endpoint().baseUrl;
    },

    async complete(messages, { operation, signal, responseFormat, maxTokens }) {
      const stopTimer = metrics.llmCallDuration.startTimer({ operation });
      const call = linkedSignal(signal);
      try {
        const { sdk, model } = client();
        const completion = await sdk.chat.completions.create(
          {
            model,
            messages,
            stream: false,
            ...(responseFormat ? { response_format: responseFormat } : {}),
            ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
          },
          call ? { signal: call.signal } : {},
        );
        const choice = completion.choices[0];
        const usage = completion.usage
          ? {
              promptTokens: completion.usage.prompt_tokens,
              completionTokens: completion.usage.completion_tokens,
            }
          : undefined;
        return {
          content: choice?.message.content ?? '',
          finishReason: choice?.finish_reason ?? null,
          usage,
        };
      } finally {
        call?.unlink();
        stopTimer();
      }
    },

    async listModels(timeoutMs) {
      const page = await client().sdk.models.list({ timeout: timeoutMs, maxRetries: 0 });
      return page.data.map((entry) => ({ id: entry.id, maxModelLength: contextLengthOf(entry) }));
    },
  };
}

/**
 * A signal for one call that follows the request's signal. The SDK leaves its listener on the
 * signal it is given; on a per-call signal that listener goes away with the call instead of
 * piling up on the request's signal, one per model call.
 */
function linkedSignal(parent: AbortSignal | undefined) {
  if (!parent) return undefined;
  const controller = new AbortController();
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    unlink: () => parent.removeEventListener('abort', follow),
  };
}

/** Counts every HTTP attempt and caps retry hints at `maxWaitMs`. */
function observedFetch(metrics: SummarizerMetrics, maxWaitMs: number): typeof fetch {
  return async function modelServerFetch(input, init) {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (err) {
      metrics.llmHttpAttempts.inc({ status: 'error' });
      throw thisRealmError(err);
    }
    metrics.llmHttpAttempts.inc({ status: String(response.status) });
    const wait = retryWaitMs(response.headers);
    if (wait === undefined || wait <= maxWaitMs) return response;
    const headers = new Headers(response.headers);
    headers.delete('retry-after');
    headers.set('retry-after-ms', String(maxWaitMs));
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/**
 * The SDK tells a time-out (an `AbortError`) from other connection failures only for errors that
 * are `instanceof Error` here; errors from another realm (fetch's DOMException seen from a vm
 * context, as under jest) would all count as "unreachable". Re-created here, they keep their kind.
 */
function thisRealmError(err: unknown): unknown {
  if (err instanceof Error || typeof err !== 'object' || err === null) return err;
  const { name, message } = err as { name?: unknown; message?: unknown };
  const copy = new Error(typeof message === 'string' ? message : 'fetch failed', { cause: err });
  if (typeof name === 'string') copy.name = name;
  return copy;
}

/** The pause a response asks for, from `retry-after-ms` or `retry-after` (seconds or a date). */
export function retryWaitMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && !Number.isNaN(parseFloat(ms))) return parseFloat(ms);
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  const seconds = parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date - now;
}
