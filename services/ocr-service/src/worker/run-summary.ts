/**
 * One document summary, taken from the summaries' own queue (the seed's background pool): the
 * task's chunks are read back from the result index and handed to the summarizer
 * (`summaries/summarize-hand-off.ts`), and the task's `summary` state follows along — `running`
 * with its attempt, then `done` or `failed`. The task itself stays `done` whatever happens here.
 *
 * Delivery is at least once: a summary worker that dies leaves the message pending, another
 * claims it once idle and summarises again (same ids, same documents); one already `done` is
 * not redone.
 */
import { redactString, type Logger, type SummarizerClient } from '@pelita/kit';
import { z } from 'zod';
import type { OcrMetrics } from '../ocr-metrics';
import type { QueuedTask } from '../queue/task-queue';
import type { ChunkIndex } from '../results/chunk-index';
import type { StatusStore } from '../status/status-store';
import { timestampWithoutZone } from '../status/task-record';
import { summarizeDocument } from '../summaries/summarize-hand-off';
import type { SummaryIndex } from '../summaries/summary-index';

export const SummaryJobSchema = z.object({ pdf_name: z.string() });
export type SummaryJob = z.infer<typeof SummaryJobSchema>;

export interface RunSummaryDeps {
  statuses: StatusStore;
  chunks: ChunkIndex;
  summaries: SummaryIndex;
  summarizer: SummarizerClient;
  metrics: OcrMetrics;
  logger: Logger;
  workDir: string;
}

/** Most chunks a document can have (a 5000-page PDF). */
const MAX_CHUNKS = 1000;

export async function runSummary(
  job: SummaryJob,
  task: QueuedTask,
  deps: RunSummaryDeps,
  signal: AbortSignal,
): Promise<void> {
  const log = deps.logger.child({ taskId: task.taskId, summaryAttempt: task.deliveries });
  const record = await deps.statuses.get(task.taskId);
  if (!record) {
    log.warn('the task has no status record (removed); its summary is skipped');
    return;
  }
  if (record.summary?.status === 'done') return;
  const { documents } = await deps.chunks.read(task.taskId, 1, MAX_CHUNKS);
  if (documents.length === 0) {
    // The document was deleted while its summary waited: writing one now would leave it behind.
    log.info('the task has no chunks (deleted); its summary is skipped');
    return;
  }
  const startedAt = timestampWithoutZone();
  await deps.statuses.update(task.taskId, {
    summary: { status: 'running', attempts: task.deliveries, started_at: startedAt },
  });
  const outcome = await summarizeDocument(task.taskId, job.pdf_name, documents, {
    summarizer: deps.summarizer,
    summaries: deps.summaries,
    logger: log,
    tempDir: deps.workDir,
    signal,
  });
  deps.metrics.summaries.inc({ outcome: outcome.ok ? 'ok' : 'failed' });
  await deps.statuses.update(task.taskId, {
    summary: {
      status: outcome.ok ? 'done' : 'failed',
      attempts: task.deliveries,
      started_at: startedAt,
      finished_at: timestampWithoutZone(),
      // The summarizer's answer is quoted: never a credential in a status record.
      ...(outcome.ok ? {} : { error: redactString(outcome.error) }),
    },
  });
}

/** Marks a summary the queue gave up on (delivered too often: its workers kept dying). */
export async function failSummaryExhausted(task: QueuedTask, statuses: StatusStore): Promise<void> {
  await statuses.update(task.taskId, {
    summary: {
      status: 'failed',
      attempts: task.deliveries - 1,
      error: `the summary was started ${task.deliveries - 1} times without finishing (its workers stopped or died)`,
      finished_at: timestampWithoutZone(),
    },
  });
}
