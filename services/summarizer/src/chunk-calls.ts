/**
 * One model call per chunk, all started at once (the model client bounds how many run). A chunk
 * whose call fails because of the model server or its answer does not fail the request: its
 * outcome is the failure, counted by stage and logged, and the caller decides what stands in for
 * it. An abort, or any other error, fails the whole.
 */
import { describeModelError, isAbort, isModelFailure, type Logger } from '@pelita/kit';
import type { SummarizerMetrics } from './summarizer-metrics';

export type ChunkStage = 'initial' | 'reduction' | 'entities';

export type ChunkOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface ChunkCallDeps {
  logger: Logger;
  metrics: SummarizerMetrics;
}

export interface ChunkCallLog {
  stage: ChunkStage;
  /** What the failure of one chunk means, the start of the warning logged for it. */
  onFailure: string;
  /** Extra fields of that warning. */
  bindings?: Record<string, unknown>;
}

export async function callPerChunk<C, T>(
  chunks: readonly C[],
  log: ChunkCallLog,
  deps: ChunkCallDeps,
  signal: AbortSignal | undefined,
  call: (chunk: C) => Promise<T>,
): Promise<Array<ChunkOutcome<T>>> {
  return Promise.all(
    chunks.map(async (chunk, index): Promise<ChunkOutcome<T>> => {
      try {
        const value = await call(chunk);
        deps.metrics.chunksProcessed.inc({ stage: log.stage, outcome: 'ok' });
        return { ok: true, value };
      } catch (err) {
        if (isAbort(err, signal) || !isModelFailure(err)) throw err;
        deps.metrics.chunksProcessed.inc({ stage: log.stage, outcome: 'failed' });
        deps.logger.warn(
          { ...log.bindings, chunk: index, chunks: chunks.length },
          `${log.onFailure}: ${describeModelError(err)}`,
        );
        return { ok: false, error: err };
      }
    }),
  );
}
