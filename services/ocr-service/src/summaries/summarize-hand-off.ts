/**
 * After indexing, the chunks go to the summarizer and its results to the summary indexes. The
 * task is `done` whatever happens here (the seed): a failure is logged with the task id and
 * returned, never thrown — except a cancellation (the worker is stopping), which is thrown so
 * the summary is left to the next worker. The temporary input file is removed in every case.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage, type Logger } from '@pelita/kit';
import type { ChunkDocument } from '../results/chunks';
import type { SummarizerClient } from '@pelita/kit';
import type { SummaryIndex } from './summary-index';

export interface HandOffDeps {
  summarizer: SummarizerClient;
  summaries: SummaryIndex;
  logger: Logger;
  tempDir?: string;
  /** Aborted when the worker stops: the summarizer call is cancelled. */
  signal?: AbortSignal;
}

export type HandOffOutcome = { ok: true; chunkSummaries: number } | { ok: false; error: string };

export async function summarizeDocument(
  taskId: string,
  pdfName: string,
  chunks: ChunkDocument[],
  deps: HandOffDeps,
): Promise<HandOffOutcome> {
  const dir = await mkdtemp(join(deps.tempDir ?? tmpdir(), 'summarize-'));
  try {
    const file = join(dir, `${taskId}.json`);
    await writeFile(file, JSON.stringify(chunks));
    const summary = await deps.summarizer.summarize(file, deps.signal);
    await deps.summaries.store(taskId, pdfName, summary);
    return { ok: true, chunkSummaries: summary.summarize_chunk.length };
  } catch (err) {
    if (deps.signal?.aborted) throw err;
    deps.logger.error(
      { taskId, err: errorMessage(err) },
      'summarising the document failed; the task stays done',
    );
    return { ok: false, error: errorMessage(err) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
