/**
 * Named entities of a text of any length: the text is split like `/summarize` splits it, each
 * chunk is one entity call (in parallel under the concurrency limit), and the sets are merged.
 * A failing chunk contributes nothing. Answers that never parse are empty lists, not a failure;
 * only when the model server itself failed for every chunk is the first failure reported.
 */
import type { Logger } from '@pelita/kit';
import { DEFAULT_CHUNK_SIZE, chunkBySentences } from './chunker';
import { emptyEntities, mergeEntities, type NamedEntities } from './entities';
import { describeModelError, ModelOutputError, toUpstreamHttpError } from '@pelita/kit';
import { callPerChunk } from './chunk-calls';
import type { ModelTasks } from './model-tasks';
import type { EntitiesFile } from './output-files';
import type { SummarizerMetrics } from './summarizer-metrics';
import { chunkSizeFor, estimateTokensOfWords } from './token-estimate';

export interface EntityExtraction {
  entities: NamedEntities;
  /** Prompt tokens of the successful calls (usage figures, else estimated from the words). */
  inputTokens: number;
  chunks: number;
  failed: number;
  /** The first failure, when there was one. */
  firstError: unknown;
  failures: unknown[];
}

export interface EntityExtractionDeps {
  tasks: ModelTasks;
  logger: Logger;
  metrics: SummarizerMetrics;
}

export async function extractEntitiesOf(
  text: string,
  chunkSize: number,
  deps: EntityExtractionDeps,
  signal?: AbortSignal,
): Promise<EntityExtraction> {
  const chunks = chunkBySentences(text, chunkSize);
  const outcomes = await callPerChunk(
    chunks,
    { stage: 'entities', onFailure: 'entity extraction of a chunk failed' },
    deps,
    signal,
    async (chunk) => {
      const answer = await deps.tasks.extractEntities(chunk.text, { signal, logger: deps.logger });
      return {
        entities: answer.entities,
        tokens: answer.usage.promptTokens ?? estimateTokensOfWords(chunk.words),
      };
    },
  );
  const succeeded = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.value] : []));
  const failures = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.error]));
  return {
    entities:
      succeeded.length > 0
        ? mergeEntities(...succeeded.map((result) => result.entities))
        : emptyEntities(),
    inputTokens: succeeded.reduce((sum, result) => sum + result.tokens, 0),
    chunks: chunks.length,
    failed: failures.length,
    firstError: failures[0],
    failures,
  };
}

/**
 * The `/extract_entities` result: entities of the whole text in 10,000-word chunks, or smaller
 * ones where the model's context takes no more.
 */
export async function entitiesFileOf(
  text: string,
  deps: EntityExtractionDeps,
  signal?: AbortSignal,
): Promise<EntitiesFile> {
  const { chunkSize } = chunkSizeFor(DEFAULT_CHUNK_SIZE, deps.tasks.contextLength());
  const extraction = await extractEntitiesOf(text, chunkSize, deps, signal);
  const unreadable = extraction.failures.filter((err) => err instanceof ModelOutputError).length;
  if (extraction.failed === extraction.chunks && unreadable < extraction.failed) {
    throw toUpstreamHttpError(
      extraction.firstError,
      extraction.chunks === 1
        ? 'entity extraction failed'
        : `entity extraction failed for all ${extraction.chunks} chunks`,
    );
  }
  const warnings: string[] = [];
  if (extraction.failed > 0) {
    if (unreadable > 0) deps.metrics.degraded.inc({ what: 'entities_empty' });
    warnings.push(
      `${extraction.failed} of ${extraction.chunks} chunks gave no usable entities and count as ` +
        `empty lists (${describeModelError(extraction.firstError)})`,
    );
  }
  return {
    named_entities: extraction.entities,
    input_tokens: extraction.inputTokens,
    timestamp: new Date().toISOString(),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
