/**
 * Chat completions from an OpenAI-compatible model server through the `openai` package, streamed.
 * One client per server and key. A failure before the first token is thrown as the kit's HTTP
 * error for it (503 unreachable, 504 time-out, 502 anything else); after it, the stream ends
 * with the error and the caller keeps what came. Planning answers that must be JSON ask for
 * their schema as `response_format` (kit `structured-output`): a server that refuses it moves
 * that model to json_object, then to the prompt alone, once. A workspace's own server is
 * reached under the target policy (its IP literal checked here, every name by the guarded
 * lookup) and never through a redirect.
 */
import {
  answerTokenCap,
  contextLengthOf,
  createGuardedLookup,
  createStructuredOutputModes,
  HttpError,
  parseStructuredAnswer,
  responseFormatOf,
  toUpstreamHttpError,
  type AnswerShape,
  type StructuredOutputMode,
  type TargetPolicy,
} from '@pelita/kit';
import OpenAI from 'openai';
import { Agent, fetch as guardedFetch } from 'undici';

export interface ModelChoice {
  /** Model id sent to the server (the seed's record keeps it as `llm`). */
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
  /**
   * A server a workspace manager named (not the install's): reached only through the SSRF guard,
   * which checks the address actually connected to (public, or ALLOWED_TARGETS).
   */
  guarded?: boolean;
}

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface StreamedAnswer {
  /** Text deltas as they come. */
  deltas: AsyncIterable<string>;
  /** Token counts, once the stream has ended (when the server reports them). */
  usage(): { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
}

export interface ModelClientOptions {
  /** Time allowed for the model's first answer and between two chunks. */
  timeoutMs: number;
  maxRetries: number;
  /** Where guarded servers may be (ALLOWED_TARGETS). */
  targetPolicy: TargetPolicy;
  /** How JSON answers are asked for first (default json_schema; refusals move a model down). */
  structuredOutput?: StructuredOutputMode;
  /** How long a failed model list stands for "context length unknown" (default a minute). */
  listRetryMs?: number;
}

/** A JSON answer: the value when it parsed and validated, and the text as it came. */
export interface JsonAnswer<T> {
  value: T | undefined;
  content: string;
}

/** Planning answers are short: a statement, an endpoint and its parameters. */
const PLANNING_MAX_TOKENS = 1024;
/** A planning answer that does not parse is asked once more, then given up. */
const PLANNING_ATTEMPTS = 2;

export function createModelClient(options: ModelClientOptions) {
  const clients = new Map<string, OpenAI>();
  const guard = new Agent({ connect: { lookup: createGuardedLookup(options.targetPolicy) } });
  // No redirect is followed: a model API has no reason to send one, and the hop would reach an
  // address nobody checked (an IP literal connects without the guarded lookup). The 3xx comes
  // back as the server's answer: a 502 naming its status.
  const guardedOptions = {
    fetch: guardedFetch,
    fetchOptions: { dispatcher: guard, redirect: 'manual' },
  };
  const modes = createStructuredOutputModes({
    preferred: options.structuredOutput ?? 'json_schema',
  });
  const clientFor = (choice: ModelChoice) => {
    // An IP literal connects without a lookup: checked here.
    if (choice.guarded) options.targetPolicy.checkUrl(new URL(choice.baseUrl));
    const id = `${choice.guarded ? 'guarded' : 'install'}\u0000${choice.baseUrl}\u0000${choice.apiKey ?? ''}`;
    let client = clients.get(id);
    if (!client) {
      client = new OpenAI({
        baseURL: choice.baseUrl,
        // The package insists on a key; servers without authentication ignore it.
        apiKey: choice.apiKey ?? 'unused',
        timeout: options.timeoutMs,
        maxRetries: options.maxRetries,
        // undici's own fetch with its Agent (the global fetch's types differ, not its use).
        ...(choice.guarded ? (guardedOptions as object) : {}),
      });
      clients.set(id, client);
    }
    return client;
  };

  /**
   * Each model's context length, asked of its server's model list once. A list without it is
   * remembered as unknown (prompts are then sent whole, planning answers ask for their usual
   * length); a list that failed is asked again a minute later, so one bad moment of the model
   * server does not leave prompts unfitted until a restart.
   */
  const contextLengths = new Map<string, Promise<number | undefined>>();
  const keyOf = (choice: ModelChoice) => `${choice.baseUrl}\u0000${choice.model}`;
  const contextOf = (choice: ModelChoice) => {
    const key = keyOf(choice);
    let length = contextLengths.get(key);
    if (!length) {
      length = clientFor(choice)
        .models.list({ maxRetries: 0 })
        .then((page) => {
          const entry = page.data.find((model) => model.id === choice.model);
          return entry && contextLengthOf(entry);
        })
        .catch(() => {
          setTimeout(
            () => contextLengths.delete(key),
            options.listRetryMs ?? LIST_RETRY_MS,
          ).unref();
          return undefined;
        });
      contextLengths.set(key, length);
    }
    return length;
  };

  return {
    /** The model's context length in tokens, as its server's model list says (once); or unknown. */
    contextLength: (choice: ModelChoice): Promise<number | undefined> => contextOf(choice),

    /** The ids the model's server lists (a check that a workspace model exists there). */
    async listModels(choice: ModelChoice): Promise<string[]> {
      const client = clientFor(choice);
      try {
        const page = await client.models.list();
        return page.data.map((model) => model.id);
      } catch (err) {
        throw toUpstreamHttpError(err, 'The model server could not list its models');
      }
    },

    /**
     * A planning answer as `shape` (SQL, endpoint choice): its schema is sent as response_format
     * (or less, as the server allows), an answer that does not parse is asked once more, and
     * one that never does comes back without a value, for the caller to make do with the text.
     */
    async completeJson<T>(
      choice: ModelChoice,
      turns: ChatTurn[],
      shape: AnswerShape<T>,
      settings: { signal?: AbortSignal } = {},
    ): Promise<JsonAnswer<T>> {
      const key = keyOf(choice);
      const maxTokens = answerTokenCap(turns, await contextOf(choice), PLANNING_MAX_TOKENS);
      let content = '';
      for (let attempt = 1; attempt <= PLANNING_ATTEMPTS; attempt += 1) {
        content = await modes
          .send(key, (mode) => {
            const responseFormat = responseFormatOf(shape, mode);
            return clientFor(choice).chat.completions.create(
              {
                model: choice.model,
                messages: turns,
                temperature: 0,
                max_tokens: maxTokens,
                ...(responseFormat ? { response_format: responseFormat } : {}),
              },
              settings.signal ? { signal: settings.signal } : {},
            );
          })
          .then((answer) => answer.choices[0]?.message?.content ?? '')
          .catch((err: unknown) => {
            throw toUpstreamHttpError(err, 'The model could not answer');
          });
        const parsed = parseStructuredAnswer(content, shape);
        if (parsed.ok) return { value: parsed.value, content };
      }
      return { value: undefined, content };
    },

    /**
     * Starts the answer; resolves once the server has accepted the request. The model has
     * `timeoutMs` to start and then between two chunks (a stalled stream ends with a time-out,
     * whatever its length so far); the whole answer may take as long as it keeps coming.
     */
    async stream(
      choice: ModelChoice,
      turns: ChatTurn[],
      settings: { temperature: number; signal?: AbortSignal },
    ): Promise<StreamedAnswer> {
      const idle = idleDeadline(options.timeoutMs);
      const signal = settings.signal
        ? AbortSignal.any([settings.signal, idle.signal])
        : idle.signal;
      const failure = (err: unknown, context: string) =>
        idle.expired()
          ? new HttpError(
              504,
              'llm_timeout',
              `${context}: no answer within ${options.timeoutMs} ms`,
            )
          : settings.signal?.aborted
            ? new HttpError(499, 'client_closed_request', 'The client closed the connection')
            : toUpstreamHttpError(err, context);
      const stream = await clientFor(choice)
        .chat.completions.create(
          {
            model: choice.model,
            messages: turns,
            temperature: settings.temperature,
            stream: true,
            stream_options: { include_usage: true },
          },
          // The idle deadline is this call's time-out: the package's own would cut long answers.
          { signal, timeout: STREAM_REQUEST_TIMEOUT_MS },
        )
        .catch((err: unknown) => {
          idle.clear();
          throw failure(err, 'The model could not answer');
        });
      idle.touch();
      let usage: ReturnType<StreamedAnswer['usage']>;
      async function* deltas(): AsyncGenerator<string> {
        try {
          for await (const chunk of stream) {
            idle.touch();
            if (chunk.usage) usage = chunk.usage;
            const text = chunk.choices[0]?.delta?.content;
            if (text) yield text;
          }
          // The package ends an aborted stream as if it were complete: it was not.
          if (signal.aborted) throw signal.reason;
        } catch (err) {
          throw failure(err, 'The model failed while answering');
        } finally {
          idle.clear();
        }
      }
      return { deltas: deltas(), usage: () => usage };
    },
  };
}

export type ModelClient = ReturnType<typeof createModelClient>;

/** How long a failed model list is taken as "no context length known" before it is asked again. */
const LIST_RETRY_MS = 60_000;

/** Long enough never to end a streamed answer that keeps coming (24 h). */
const STREAM_REQUEST_TIMEOUT_MS = 86_400_000;

/** A deadline pushed back by every sign of progress; its signal aborts once it passes. */
function idleDeadline(ms: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error(`no progress within ${ms} ms`)), ms);
  };
  touch();
  return {
    signal: controller.signal,
    touch,
    clear: () => clearTimeout(timer),
    expired: () => controller.signal.aborted,
  };
}
