/**
 * The hierarchical summary of `/summarize`:
 * 1. the text is chunked at sentence ends under `chunkSize` words, cut to what the model's
 *    context takes when that is known (the result says so in `warnings`);
 * 2. stage 1 summarises every chunk in parallel (under the process-wide concurrency limit), with
 *    entities read from the chunk's own text; a failing chunk becomes an empty placeholder;
 * 3. while the combined summaries exceed `targetContext` words they are re-chunked and summarised
 *    again without entities; a pass that does not shrink the text ends the loop, and so does
 *    the pass limit;
 * 4. one final call merges the combined summaries, while the entities of the aggregated key
 *    points are extracted beside it; a final merge that gives no usable JSON is asked again for
 *    plain text, and when that fails too the chunk summaries joined are the final summary (the
 *    result says so in `warnings`): once a chunk succeeded, the request succeeds;
 * 5. entities are merged from the chunks, the final summary and the key points.
 */
import type { Logger } from '@pelita/kit';
import { chunkBySentences, countWords, type Chunk } from './chunker';
import { emptyEntities, mergeEntities, dedupeStrings, type NamedEntities } from './entities';
import { callPerChunk } from './chunk-calls';
import { extractEntitiesOf } from './entity-extraction';
import {
  describeModelError,
  isAbort,
  isModelFailure,
  ModelOutputError,
  toUpstreamHttpError,
} from '@pelita/kit';
import type { ModelTasks, SummaryAnswer } from './model-tasks';
import type { ChunkSummary, SummaryFile } from './output-files';
import type { SummarizerMetrics } from './summarizer-metrics';
import { chunkSizeFor, estimateTokensOfWords, estimateTokens } from './token-estimate';

export interface SummarizeParams {
  chunkSize: number;
  targetContext: number;
  enableNer: boolean;
}

export interface SummaryPipelineDeps {
  tasks: ModelTasks;
  logger: Logger;
  metrics: SummarizerMetrics;
  maxReductionPasses: number;
}

/** Combined summaries longer than this many words are summarised again (the spec's default). */
export const DEFAULT_TARGET_CONTEXT = 128_000;

const SEPARATOR = '\n\n';

export async function summarizeDocument(
  text: string,
  requested: SummarizeParams,
  deps: SummaryPipelineDeps,
  signal?: AbortSignal,
): Promise<SummaryFile> {
  const { logger } = deps;
  const contextLength = deps.tasks.contextLength();
  const { chunkSize, cutFrom } = chunkSizeFor(requested.chunkSize, contextLength);
  const params = { ...requested, chunkSize };
  const warnings: string[] = [];
  if (cutFrom !== undefined) {
    warnings.push(
      `chunks of at most ${chunkSize} words, not ${cutFrom}: the model's context holds ` +
        `${contextLength} tokens`,
    );
  }
  const chunks = chunkBySentences(text, chunkSize);
  logger.info(
    { chunks: chunks.length, chunkSize: params.chunkSize, enableNer: params.enableNer },
    'summarising: stage 1',
  );
  const { results: stageOne, failed } = await summariseChunks(
    chunks,
    params.enableNer,
    deps,
    signal,
  );
  if (failed > 0) {
    warnings.push(
      `${failed} of ${chunks.length} chunks gave no usable answer and are empty placeholders`,
    );
  }

  const combined = stageOne
    .map((chunk) => chunk.summary)
    .filter((summary) => summary !== '')
    .join(SEPARATOR);
  const reduced = await reduceUntilWithin(combined, params, deps, signal);

  const keyPointsAggregated = dedupeStrings(stageOne.flatMap((chunk) => chunk.key_points));
  const chunkEntities = mergeEntities(...stageOne.map((chunk) => chunk.named_entities));
  const [merged, keyPointEntities] = await Promise.all([
    mergeFinal(
      reduced,
      { ner: params.enableNer, chunkSize: params.chunkSize, keyPointsAggregated, chunkEntities },
      deps,
      signal,
    ),
    keyPointEntitiesOf(keyPointsAggregated, params, deps, signal),
  ]);
  const final = merged.answer;
  if (merged.warning) warnings.push(merged.warning);

  return {
    total_initial_chunks: chunks.length,
    summarize_chunk: stageOne,
    final_summary: {
      summary: final.summary,
      key_points_model: final.keyPoints,
      key_points_aggregated: keyPointsAggregated,
      topics_aggregated: dedupeStrings([
        ...stageOne.flatMap((chunk) => chunk.topics),
        ...final.topics,
      ]),
      named_entities: {
        final_summary_entities: final.entities,
        aggregated_key_points_entities: keyPointEntities,
        chunk_entities_merged: chunkEntities,
        all_entities_merged: mergeEntities(chunkEntities, final.entities, keyPointEntities),
      },
    },
    final_summary_tokens:
      final.usage.completionTokens ?? (final.summary === '' ? 0 : estimateTokens(final.summary)),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** Stage 1. Throws only when every chunk failed (or the caller went away). */
async function summariseChunks(
  chunks: Chunk[],
  ner: boolean,
  deps: SummaryPipelineDeps,
  signal: AbortSignal | undefined,
): Promise<{ results: ChunkSummary[]; failed: number }> {
  const outcomes = await callPerChunk(
    chunks,
    { stage: 'initial', onFailure: 'chunk replaced by an empty placeholder' },
    deps,
    signal,
    (chunk) => deps.tasks.summarizeChunk(chunk.text, ner, { signal, logger: deps.logger }),
  );
  const failures = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.error]));
  if (failures.length === chunks.length) {
    throw toUpstreamHttpError(failures[0], `all ${chunks.length} chunks failed`);
  }
  const results = chunks.map((chunk, index) => {
    const outcome = outcomes[index];
    return outcome?.ok ? chunkSummary(index, chunk, outcome.value) : placeholder(index, chunk);
  });
  return { results, failed: failures.length };
}

function chunkSummary(index: number, chunk: Chunk, answer: SummaryAnswer): ChunkSummary {
  return {
    chunk_index: index,
    original_tokens: answer.usage.promptTokens ?? estimateTokensOfWords(chunk.words),
    summary_tokens: answer.usage.completionTokens ?? estimateTokens(answer.summary),
    original_text: chunk.text,
    summary: answer.summary,
    key_points: answer.keyPoints,
    topics: answer.topics,
    named_entities: answer.entities,
  };
}

function placeholder(index: number, chunk: Chunk): ChunkSummary {
  return {
    chunk_index: index,
    original_tokens: estimateTokensOfWords(chunk.words),
    summary_tokens: 0,
    original_text: chunk.text,
    summary: '',
    key_points: [],
    topics: [],
    named_entities: emptyEntities(),
  };
}

/**
 * Stage 2 and later. Each pass must shrink the text, else the shorter text so far is kept and
 * the loop ends; a chunk that fails in a pass keeps its text, so nothing is lost silently.
 */
async function reduceUntilWithin(
  text: string,
  params: SummarizeParams,
  deps: SummaryPipelineDeps,
  signal: AbortSignal | undefined,
): Promise<string> {
  let current = text;
  let words = countWords(current);
  if (words <= params.targetContext) {
    deps.metrics.reductionLoops.inc({ ended: 'not_needed' });
    return current;
  }
  for (let pass = 1; ; pass += 1) {
    if (pass > deps.maxReductionPasses) {
      deps.metrics.reductionLoops.inc({ ended: 'pass_limit' });
      deps.logger.warn(
        { words, targetContext: params.targetContext, passes: pass - 1 },
        'reduction pass limit reached; merging the text as it is',
      );
      return current;
    }
    const chunks = chunkBySentences(current, params.chunkSize);
    deps.logger.info(
      { pass: pass + 1, words, chunks: chunks.length },
      'summarising: reduction pass',
    );
    const outcomes = await callPerChunk(
      chunks,
      {
        stage: 'reduction',
        onFailure: 'reduction of a chunk failed, its text is kept',
        bindings: { pass: pass + 1 },
      },
      deps,
      signal,
      async (chunk) =>
        (await deps.tasks.reduce(chunk.text, { signal, logger: deps.logger })).summary,
    );
    const summaries = chunks.map((chunk, index) => {
      const outcome = outcomes[index];
      return outcome?.ok ? outcome.value : chunk.text;
    });
    const next = summaries.filter((summary) => summary !== '').join(SEPARATOR);
    const nextWords = countWords(next);
    if (nextWords >= words) {
      deps.metrics.reductionLoops.inc({ ended: 'no_shrink' });
      deps.logger.warn(
        { pass: pass + 1, words, nextWords, targetContext: params.targetContext },
        'a reduction pass did not shrink the text; merging the shorter text',
      );
      return current;
    }
    current = next;
    words = nextWords;
    if (words <= params.targetContext) {
      deps.metrics.reductionLoops.inc({ ended: 'target_reached' });
      return current;
    }
  }
}

interface FinalInputs {
  ner: boolean;
  chunkSize: number;
  /** What exists when the final merge gives nothing structured. */
  keyPointsAggregated: string[];
  chunkEntities: NamedEntities;
}

/**
 * The final merge; nothing to merge (every summary empty) gives an empty final summary. It does
 * not fail the request once stage 1 has given something: an answer that never parses is asked
 * again as plain text (its entities read by entity calls), and when that fails too, or the model
 * server failed, the combined summaries are the final summary. Key points then come from the
 * chunks; `warning` says what happened.
 */
async function mergeFinal(
  text: string,
  inputs: FinalInputs,
  deps: SummaryPipelineDeps,
  signal: AbortSignal | undefined,
): Promise<{ answer: SummaryAnswer; warning?: string }> {
  if (text.trim() === '') {
    return {
      answer: {
        summary: '',
        keyPoints: [],
        topics: [],
        entities: emptyEntities(),
        usage: { promptTokens: undefined, completionTokens: 0 },
      },
    };
  }
  const context = { signal, logger: deps.logger };
  let failure: unknown;
  try {
    return { answer: await deps.tasks.finalMerge(text, inputs.ner, context) };
  } catch (err) {
    if (isAbort(err, signal) || !isModelFailure(err)) throw err;
    failure = err;
  }
  deps.logger.warn(`the final merge failed (${describeModelError(failure)}); degrading`);
  if (failure instanceof ModelOutputError) {
    try {
      const plain = await deps.tasks.finalText(text, context);
      const entities = inputs.ner
        ? (await extractEntitiesOf(plain.text, inputs.chunkSize, deps, signal)).entities
        : emptyEntities();
      deps.metrics.degraded.inc({ what: 'final_text' });
      return {
        answer: {
          summary: plain.text,
          keyPoints: inputs.keyPointsAggregated,
          topics: [],
          entities,
          usage: plain.usage,
        },
        warning:
          "the final merge gave no usable JSON; the final summary is the model's plain-text " +
          "answer and key_points_model are the chunks' key points",
      };
    } catch (err) {
      if (isAbort(err, signal) || !isModelFailure(err)) throw err;
      deps.logger.warn(`the plain-text final summary failed too (${describeModelError(err)})`);
    }
  }
  deps.metrics.degraded.inc({ what: 'final_joined' });
  return {
    answer: {
      summary: text,
      keyPoints: inputs.keyPointsAggregated,
      topics: [],
      entities: inputs.chunkEntities,
      usage: { promptTokens: undefined, completionTokens: undefined },
    },
    warning:
      `the final merge failed (${describeModelError(failure)}); the final summary is the chunk ` +
      'summaries joined, with their key points and entities',
  };
}

/** Entities of the aggregated key points; a failure here leaves that source empty. */
async function keyPointEntitiesOf(
  keyPoints: string[],
  params: SummarizeParams,
  deps: SummaryPipelineDeps,
  signal: AbortSignal | undefined,
): Promise<NamedEntities> {
  if (!params.enableNer || keyPoints.length === 0) return emptyEntities();
  const extraction = await extractEntitiesOf(
    keyPoints.join(SEPARATOR),
    params.chunkSize,
    deps,
    signal,
  );
  return extraction.entities;
}
