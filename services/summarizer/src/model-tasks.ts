/**
 * The four things the summarizer asks a model, each answered as typed data. Every call goes
 * through the process-wide concurrency limit; an answer that does not parse (after removing
 * reasoning blocks and code fences, and after the repair step) is asked again, three attempts
 * in all. Transport failures are not asked again here: the SDK has already retried them.
 */
import type { ConcurrencyLimit, Logger } from '@pelita/kit';
import {
  ENTITY_KEYS,
  dedupeStrings,
  normaliseEntities,
  type EntityKey,
  type NamedEntities,
} from './entities';
import { parseModelJson } from './json-repair';
import type { Completion, ModelClient } from './llm-client';
import { ModelOutputError, outcomeOf } from '@pelita/kit';
import { buildMessages, type ModelTask } from './prompts';
import type { CallOperation, SummarizerMetrics } from './summarizer-metrics';
import { estimateTokens } from './token-estimate';

const PARSE_ATTEMPTS = 3;

/** Token figures of the call that produced an answer; undefined when the server gave none. */
export interface AnswerUsage {
  promptTokens: number | undefined;
  completionTokens: number | undefined;
}

export interface SummaryAnswer {
  summary: string;
  keyPoints: string[];
  topics: string[];
  entities: NamedEntities;
  usage: AnswerUsage;
}

export interface EntitiesAnswer {
  entities: NamedEntities;
  usage: AnswerUsage;
}

/** The request a call serves: cancelled with it, logged with its logger. */
export interface CallContext {
  signal?: AbortSignal;
  logger?: Logger;
}

export interface ModelTasks {
  summarizeChunk(text: string, ner: boolean, call?: CallContext): Promise<SummaryAnswer>;
  reduce(text: string, call?: CallContext): Promise<SummaryAnswer>;
  finalMerge(text: string, ner: boolean, call?: CallContext): Promise<SummaryAnswer>;
  extractEntities(text: string, call?: CallContext): Promise<EntitiesAnswer>;
}

export interface ModelTaskDeps {
  client: ModelClient;
  limit: ConcurrencyLimit;
  logger: Logger;
  metrics: SummarizerMetrics;
}

type Reader<T> = (value: Record<string, unknown>) => T | undefined;

export function createModelTasks(deps: ModelTaskDeps): ModelTasks {
  async function ask<T>(
    task: ModelTask,
    operation: CallOperation,
    text: string,
    read: Reader<T>,
    { signal, logger = deps.logger }: CallContext = {},
  ): Promise<{ value: T; usage: AnswerUsage }> {
    const messages = buildMessages(task, text);
    let lastProblem = '';
    for (let attempt = 1; attempt <= PARSE_ATTEMPTS; attempt += 1) {
      let completion: Completion;
      let started = false;
      try {
        completion = await deps.limit.run(() => {
          started = true;
          return deps.client.complete(messages, { operation, ...(signal ? { signal } : {}) });
        }, signal);
      } catch (err) {
        // A call cancelled while waiting for a slot was never made: nothing to count.
        if (started) deps.metrics.llmCalls.inc({ operation, outcome: outcomeOf(err) });
        throw err;
      }
      countTokens(deps.metrics, completion, text);
      const parsed = parseModelJson(completion.content);
      const value = parsed.ok ? read(parsed.value) : undefined;
      if (value !== undefined) {
        deps.metrics.llmCalls.inc({ operation, outcome: 'success' });
        if (parsed.ok && parsed.repaired) {
          logger.info(
            { operation, attempt, finishReason: completion.finishReason },
            'model answer repaired',
          );
        }
        return {
          value,
          usage: {
            promptTokens: completion.usage?.promptTokens,
            completionTokens: completion.usage?.completionTokens,
          },
        };
      }
      deps.metrics.llmCalls.inc({ operation, outcome: 'invalid_output' });
      lastProblem = parsed.ok ? 'the JSON lacks the fields asked for' : parsed.reason;
      logger.warn(
        { operation, attempt, attempts: PARSE_ATTEMPTS, finishReason: completion.finishReason },
        `unusable model answer: ${lastProblem}`,
      );
    }
    throw new ModelOutputError(
      `no usable answer in ${PARSE_ATTEMPTS} attempts (last: ${lastProblem})`,
    );
  }

  const summaryTask = async (
    task: ModelTask,
    operation: CallOperation,
    text: string,
    call: CallContext | undefined,
  ): Promise<SummaryAnswer> => {
    const { value, usage } = await ask(task, operation, text, readSummary, call);
    return { ...value, usage };
  };

  return {
    summarizeChunk: (text, ner, call) => summaryTask({ kind: 'chunk', ner }, 'chunk', text, call),
    reduce: (text, call) => summaryTask({ kind: 'reduce' }, 'reduce', text, call),
    finalMerge: (text, ner, call) => summaryTask({ kind: 'final', ner }, 'final', text, call),
    extractEntities: async (text, call) => {
      const { value, usage } = await ask(
        { kind: 'entities' },
        'entities',
        text,
        readEntities,
        call,
      );
      return { entities: value, usage };
    },
  };
}

/** `summary` must be a string; the lists are read leniently (a lone string becomes a list). */
function readSummary(value: Record<string, unknown>): Omit<SummaryAnswer, 'usage'> | undefined {
  if (typeof value.summary !== 'string') return undefined;
  return {
    summary: value.summary.trim(),
    keyPoints: readList(value.key_points),
    topics: readList(value.topics),
    entities: normaliseEntities(value.named_entities),
  };
}

/** `named_entities`, or entity keys at the top level; neither is an unusable answer. */
function readEntities(value: Record<string, unknown>): NamedEntities | undefined {
  if (typeof value.named_entities === 'object' && value.named_entities !== null) {
    return normaliseEntities(value.named_entities);
  }
  const hasEntityKeys = Object.keys(value).some((key) =>
    ENTITY_KEYS.includes(key.trim().toUpperCase() as EntityKey),
  );
  return hasEntityKeys ? normaliseEntities(value) : undefined;
}

function readList(value: unknown): string[] {
  if (Array.isArray(value)) return dedupeStrings(value);
  return typeof value === 'string' ? dedupeStrings([value]) : [];
}

function countTokens(metrics: SummarizerMetrics, completion: Completion, text: string): void {
  metrics.tokens.inc({ direction: 'in' }, completion.usage?.promptTokens ?? estimateTokens(text));
  metrics.tokens.inc(
    { direction: 'out' },
    completion.usage?.completionTokens ?? estimateTokens(completion.content),
  );
}
