/**
 * JSON answers from OpenAI-compatible model servers. A call that needs JSON describes its answer
 * once, as a zod schema: the same schema becomes the `response_format` json_schema the server is
 * asked to enforce and validates what comes back, so the two cannot drift. Servers differ in
 * what they accept (OpenAI, vLLM and llama.cpp's server take json_schema; some only
 * `json_object`; some refuse the parameter), so each model walks down
 * json_schema → json_object → prompt-only once, when its server refuses a mode, and is
 * remembered there.
 */
import { z } from 'zod';
import { isOpenAiError } from './model-errors';
import { parseModelJson } from './model-json';

export const STRUCTURED_OUTPUT_MODES = ['json_schema', 'json_object', 'prompt'] as const;
/** How a call asks for JSON: enforced by a schema, any JSON object, or only by its prompt. */
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

export type ResponseFormat =
  | {
      type: 'json_schema';
      json_schema: { name: string; schema: Record<string, unknown>; strict: true };
    }
  | { type: 'json_object' };

/** One kind of answer: its name (sent to the server) and the schema that validates it. */
export interface AnswerShape<T> {
  name: string;
  schema: z.ZodType<T>;
  /** The JSON schema sent as `response_format`, generated from `schema` once. */
  jsonSchema: Record<string, unknown>;
}

/**
 * Describes an answer. Fails at once (at module load, in practice) when the schema cannot be
 * sent with `strict: true`: OpenAI's strict mode wants every property required and no others.
 */
export function defineAnswerShape<T>(name: string, schema: z.ZodType<T>): AnswerShape<T> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new Error(`answer shape name "${name}": letters, digits, _ and - only, at most 64`);
  }
  return { name, schema, jsonSchema: strictJsonSchema(schema, name) };
}

/**
 * The zod schema as a JSON schema fit for strict mode. The output side is used: a field that a
 * preprocess step makes lenient on reading is still described as what it must become.
 */
function strictJsonSchema(schema: z.ZodType, name = 'answer'): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as Record<
    string,
    unknown
  >;
  // Servers take the schema itself; the dialect marker only trips some of them up.
  delete generated.$schema;
  assertStrict(generated, name);
  return generated;
}

function assertStrict(node: unknown, path: string): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => assertStrict(item, `${path}[${index}]`));
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (record.type === 'object' && typeof record.properties === 'object') {
    const keys = Object.keys(record.properties as object);
    const required = new Set((record.required as string[] | undefined) ?? []);
    const optional = keys.filter((key) => !required.has(key));
    if (optional.length > 0 || record.additionalProperties !== false) {
      throw new Error(
        `${path}: strict structured output needs every property required and no others ` +
          `(optional: ${optional.join(', ') || 'none'})`,
      );
    }
  }
  for (const [key, value] of Object.entries(record)) assertStrict(value, `${path}.${key}`);
}

/** The `response_format` of a call in `mode`; prompt-only sends none. */
export function responseFormatOf(
  shape: AnswerShape<unknown>,
  mode: StructuredOutputMode,
): ResponseFormat | undefined {
  switch (mode) {
    case 'json_schema':
      return {
        type: 'json_schema',
        json_schema: { name: shape.name, schema: shape.jsonSchema, strict: true },
      };
    case 'json_object':
      return { type: 'json_object' };
    case 'prompt':
      return undefined;
  }
}

export type StructuredParse<T> =
  { ok: true; value: T; repaired: boolean } | { ok: false; reason: string };

/**
 * The answer read as `shape`: reasoning blocks and fences removed, the object located and
 * repaired when needed (a cut-off answer keeps its complete fields), then validated.
 */
export function parseStructuredAnswer<T>(
  content: string,
  shape: AnswerShape<T>,
): StructuredParse<T> {
  const parsed = parseModelJson(content);
  if (!parsed.ok) return parsed;
  const checked = shape.schema.safeParse(parsed.value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'the answer';
    return {
      ok: false,
      reason: `the JSON does not match ${shape.name}: ${where}: ${issue?.message ?? 'invalid'}`,
    };
  }
  return { ok: true, value: checked.data, repaired: parsed.repaired };
}

/**
 * A 400 about the prompt's length, not about the parameters: no other mode helps (vLLM, OpenAI:
 * "maximum context length"; TGI's 422: "`inputs` tokens + `max_new_tokens` must be <= ...").
 */
const LENGTH_PROBLEM =
  /context length|context window|maximum context|too long|too many tokens|max_new_tokens|max_tokens/i;

/**
 * Whether the server refused the request as such (400, or 422 from some gateways) for a reason
 * another `response_format` may cure.
 */
export function isFormatRefusal(err: unknown): boolean {
  return (
    isOpenAiError(err) &&
    (err.status === 400 || err.status === 422) &&
    !LENGTH_PROBLEM.test(err.message)
  );
}

export interface StructuredOutputModes {
  /** The mode the model's next call uses. */
  modeFor(model: string): StructuredOutputMode;
  /**
   * Sends with the model's mode. When the server refuses the request (see
   * {@link isFormatRefusal}), the next mode is tried; a lower mode that is accepted is kept for
   * the model from then on. When every mode is refused, nothing is remembered (the refusal was
   * about something else) and the first refusal is thrown.
   */
  send<R>(model: string, call: (mode: StructuredOutputMode) => Promise<R>): Promise<R>;
}

export interface StructuredOutputModesOptions {
  /** The first mode tried (a setting: `prompt` for servers known to refuse the parameter). */
  preferred: StructuredOutputMode;
  /** Told once per model and mode given up, for a log line and a metric. */
  onDowngrade?: (model: string, from: StructuredOutputMode, to: StructuredOutputMode) => void;
}

export function createStructuredOutputModes(
  options: StructuredOutputModesOptions,
): StructuredOutputModes {
  const remembered = new Map<string, StructuredOutputMode>();
  const modeFor = (model: string) => remembered.get(model) ?? options.preferred;
  return {
    modeFor,
    async send(model, call) {
      const start = modeFor(model);
      let firstRefusal: unknown;
      for (let index = indexOf(start); ; index += 1) {
        const mode = STRUCTURED_OUTPUT_MODES[index];
        if (mode === undefined) throw firstRefusal;
        try {
          const result = await call(mode);
          if (indexOf(mode) > indexOf(modeFor(model))) {
            remembered.set(model, mode);
            options.onDowngrade?.(model, start, mode);
          }
          return result;
        } catch (err) {
          if (!isFormatRefusal(err)) throw err;
          // Refused even without response_format: the request itself was the problem.
          if (mode === 'prompt') throw firstRefusal ?? err;
          firstRefusal ??= err;
        }
      }
    },
  };
}

const indexOf = (mode: StructuredOutputMode) => STRUCTURED_OUTPUT_MODES.indexOf(mode);

/** Fields servers use for a model's context length: vLLM, llama.cpp/LM Studio/OpenRouter, others. */
const CONTEXT_LENGTH_FIELDS = [
  'max_model_len',
  'context_length',
  'context_window',
  'max_context_length',
] as const;

/** The context length a model-list entry reports, if any. */
export function contextLengthOf(entry: object): number | undefined {
  const raw = entry as Record<string, unknown>;
  return CONTEXT_LENGTH_FIELDS.map((field) => raw[field]).find(
    (value): value is number => typeof value === 'number' && value > 0,
  );
}

/** Characters per token assumed for the prompt: low on purpose (code and JSON tokenise densely). */
const CHARS_PER_TOKEN = 3;
/** Tokenisers differ: the estimate is raised by this share before it is taken from the context. */
const PROMPT_MARGIN = 0.1;
/** Tokens a chat template adds around each message, at most. */
const TOKENS_PER_MESSAGE = 8;
/** Never ask for fewer tokens than this: a prompt that leaves less is refused by the server. */
const MIN_ANSWER_TOKENS = 32;

/**
 * `max_tokens` for one call: what the caller wants, but no more than the context leaves after
 * the prompt (estimated generously), so a long prompt gets a shorter answer instead of a 400
 * or an answer cut by the context. Without a known context length, what the caller wants;
 * undefined (send none: the server's default) when the caller wants no fixed cap either.
 */
export function answerTokenCap(
  messages: ReadonlyArray<{ content?: unknown }>,
  contextLength: number | undefined,
  wanted: number | undefined,
): number | undefined {
  if (contextLength === undefined) return wanted;
  const room = contextLength - estimatePromptTokens(messages);
  return Math.max(MIN_ANSWER_TOKENS, Math.min(wanted ?? Infinity, room));
}

/** The tokens `messages` take of a model's context, estimated generously (margin included). */
export function estimatePromptTokens(messages: ReadonlyArray<{ content?: unknown }>): number {
  const prompt = messages.reduce(
    (sum, message) =>
      sum +
      TOKENS_PER_MESSAGE +
      promptTokens(typeof message.content === 'string' ? message.content : ''),
    0,
  );
  return Math.ceil(prompt * (1 + PROMPT_MARGIN));
}

/**
 * A generous estimate of a text's tokens: long words take several tokens (characters / 3), and
 * punctuation-dense text (JSON, tables) takes about one per word and per punctuation mark, more
 * than its length suggests; the larger of the two.
 */
function promptTokens(text: string): number {
  let pieces = 0;
  for (const _ of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) pieces += 1;
  return Math.max(Math.ceil(text.length / CHARS_PER_TOKEN), pieces);
}
