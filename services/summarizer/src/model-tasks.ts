/**
 * The things the summarizer asks a model, each answered as typed data. Every call goes through
 * the process-wide concurrency limit, asks for its answer's JSON schema as `response_format`
 * (or less, per model, when the server refuses it: kit `structured-output`), and asks for no
 * more tokens than the context leaves, nor (unless `LLM_MAX_TOKENS` fixes the cap) than an answer
 * about its text needs (`answer-budget.ts`). An answer that does not parse or validate (after removing
 * reasoning blocks and code fences, and after the repair step) is asked again, three attempts in
 * all. Transport failures are not asked again here: the SDK has already retried them.
 */
import {
  answerTokenCap,
  parseStructuredAnswer,
  responseFormatOf,
  stripReasoning,
  type AnswerShape,
  type ConcurrencyLimit,
  type Logger,
  type StructuredOutputMode,
  type StructuredOutputModes,
} from '@pelita/kit';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  CHUNK_ANSWER,
  CHUNK_ANSWER_NO_NER,
  ENTITIES_ANSWER,
  FINAL_ANSWER,
  FINAL_ANSWER_NO_NER,
  REDUCE_ANSWER,
  type SummaryValue,
} from './answer-shapes';
import { emptyEntities, type NamedEntities } from './entities';
import { answerTokenBudget } from './answer-budget';
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

export interface TextAnswer {
  text: string;
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
  /** The final summary as plain prose (no JSON asked): one attempt. */
  finalText(text: string, call?: CallContext): Promise<TextAnswer>;
  /** The model's context length in tokens, when known (setting, else the model list). */
  contextLength(): number | undefined;
}

export interface ModelTaskDeps {
  client: ModelClient;
  limit: ConcurrencyLimit;
  logger: Logger;
  metrics: SummarizerMetrics;
  /** How each model is asked for JSON (remembers a server's refusals). */
  modes: StructuredOutputModes;
  /** The largest answer any call asks for (`LLM_MAX_TOKENS`); undefined: no fixed cap. */
  maxTokens: number | undefined;
  /** Without a fixed cap: answers at most this many times their text's tokens (0: no such cap). */
  answerRatio: number;
  /** The model's context length, when known: each call's `max_tokens` stays within it. */
  contextLength: () => number | undefined;
}

export function createModelTasks(deps: ModelTaskDeps): ModelTasks {
  /** One call through the concurrency limit; failures are counted, then thrown. */
  async function call(
    operation: CallOperation,
    signal: AbortSignal | undefined,
    send: () => Promise<Completion>,
  ): Promise<Completion> {
    let started = false;
    try {
      return await deps.limit.run(() => {
        started = true;
        return send();
      }, signal);
    } catch (err) {
      // A call cancelled while waiting for a slot was never made: nothing to count.
      if (started) deps.metrics.llmCalls.inc({ operation, outcome: outcomeOf(err) });
      throw err;
    }
  }

  /**
   * A fixed cap wins; else the answer's budget from its text, but only where the context is
   * known: with an unknown context no `max_tokens` is sent (a cap could overflow it).
   */
  const tokenCap = (messages: ChatCompletionMessageParam[], text: string) => {
    const context = deps.contextLength();
    const wanted =
      deps.maxTokens ??
      (context === undefined ? undefined : answerTokenBudget(text, deps.answerRatio));
    return answerTokenCap(messages, context, wanted);
  };

  /** Asks for `task`'s answer, three parse attempts; the task's kind names the operation. */
  async function ask<T>(
    task: ModelTask,
    text: string,
    shape: AnswerShape<T>,
    { signal, logger = deps.logger }: CallContext = {},
  ): Promise<{ value: T; usage: AnswerUsage }> {
    const operation = task.kind;
    const messages = buildMessages(task, text);
    const maxTokens = tokenCap(messages, text);
    let lastProblem = '';
    for (let attempt = 1; attempt <= PARSE_ATTEMPTS; attempt += 1) {
      let mode: StructuredOutputMode = deps.modes.modeFor(deps.client.model);
      const completion = await call(operation, signal, () =>
        deps.modes.send(deps.client.model, (tried) => {
          mode = tried;
          const responseFormat = responseFormatOf(shape, tried);
          return deps.client.complete(messages, {
            operation,
            ...withCap(maxTokens),
            ...(responseFormat ? { responseFormat } : {}),
            ...(signal ? { signal } : {}),
          });
        }),
      );
      countTokens(deps.metrics, completion, text);
      const parsed = parseStructuredAnswer(completion.content, shape);
      if (parsed.ok) {
        deps.metrics.llmCalls.inc({ operation, outcome: 'success' });
        deps.metrics.answers.inc({ operation, attempt: String(attempt), mode });
        if (parsed.repaired) {
          logger.info(
            { operation, attempt, mode, finishReason: completion.finishReason },
            'model answer repaired',
          );
        }
        return { value: parsed.value, usage: usageOf(completion) };
      }
      deps.metrics.llmCalls.inc({ operation, outcome: 'invalid_output' });
      lastProblem = parsed.reason;
      logger.warn(
        {
          operation,
          attempt,
          attempts: PARSE_ATTEMPTS,
          mode,
          maxTokens,
          finishReason: completion.finishReason,
        },
        `unusable model answer: ${lastProblem}`,
      );
    }
    throw new ModelOutputError(
      `no usable answer in ${PARSE_ATTEMPTS} attempts (last: ${lastProblem})`,
    );
  }

  /** A summary-shaped answer; what the shape does not ask for is empty. */
  const summaryTask = async (
    task: ModelTask,
    text: string,
    shape: AnswerShape<Pick<SummaryValue, 'summary'> & Partial<SummaryValue>>,
    context: CallContext | undefined,
  ): Promise<SummaryAnswer> => {
    const { value, usage } = await ask(task, text, shape, context);
    return {
      summary: value.summary,
      keyPoints: value.key_points ?? [],
      topics: value.topics ?? [],
      entities: value.named_entities ?? emptyEntities(),
      usage,
    };
  };

  return {
    summarizeChunk: (text, ner, context) =>
      summaryTask({ kind: 'chunk', ner }, text, ner ? CHUNK_ANSWER : CHUNK_ANSWER_NO_NER, context),
    reduce: (text, context) => summaryTask({ kind: 'reduce' }, text, REDUCE_ANSWER, context),
    finalMerge: (text, ner, context) =>
      summaryTask({ kind: 'final', ner }, text, ner ? FINAL_ANSWER : FINAL_ANSWER_NO_NER, context),
    extractEntities: async (text, context) => {
      const { value, usage } = await ask({ kind: 'entities' }, text, ENTITIES_ANSWER, context);
      return { entities: value.named_entities, usage };
    },
    finalText: async (text, { signal } = {}) => {
      const operation = 'final_text';
      const messages = buildMessages({ kind: 'final_text' }, text);
      const completion = await call(operation, signal, () =>
        deps.client.complete(messages, {
          operation,
          ...withCap(tokenCap(messages, text)),
          ...(signal ? { signal } : {}),
        }),
      );
      countTokens(deps.metrics, completion, text);
      const answer = stripReasoning(completion.content).trim();
      if (answer === '') {
        deps.metrics.llmCalls.inc({ operation, outcome: 'invalid_output' });
        throw new ModelOutputError('the plain-text answer was empty');
      }
      deps.metrics.llmCalls.inc({ operation, outcome: 'success' });
      deps.metrics.answers.inc({ operation, attempt: '1', mode: 'text' });
      return { text: answer, usage: usageOf(completion) };
    },
    contextLength: deps.contextLength,
  };
}

const withCap = (maxTokens: number | undefined) => (maxTokens === undefined ? {} : { maxTokens });

function usageOf(completion: Completion): AnswerUsage {
  return {
    promptTokens: completion.usage?.promptTokens,
    completionTokens: completion.usage?.completionTokens,
  };
}

function countTokens(metrics: SummarizerMetrics, completion: Completion, text: string): void {
  metrics.tokens.inc({ direction: 'in' }, completion.usage?.promptTokens ?? estimateTokens(text));
  metrics.tokens.inc(
    { direction: 'out' },
    completion.usage?.completionTokens ?? estimateTokens(completion.content),
  );
}
