/**
 * One task through the seed's pipeline, stage by stage, each written to the status record:
 * queued 5 (inputs fetched, converted, merged) → uploading 10 → ocr_polling 20–80 (the engine's
 * page progress) → downloading_result 85 → uploading_pdf 86 (tasks with a local file) →
 * indexing 88 → summarizing 95 (the summary handed to the summaries' own queue, `run-summary.ts`)
 * → done 100. The summary runs in its own pool: this slot takes the next task at once.
 *
 * Delivery is at least once, so every step is idempotent: the PDF's key, the chunk ids and the
 * summary ids are the task's; a task delivered again after `done` only hands its summary off
 * again unless that is done (the worker may have died between `done` and the hand-off); one
 * delivered after `failed` is left alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { currentTraceparent, errorMessage, type Logger } from '@pelita/kit';
import type { OcrEngine } from '../engines/engine';
import type { OcrMetrics } from '../ocr-metrics';
import type { ChunkIndex } from '../results/chunk-index';
import { chunkDocuments } from '../results/chunks';
import type { StatusStore } from '../status/status-store';
import {
  STAGES,
  timestampWithoutZone,
  type Stage,
  type SummaryState,
  type TaskRecord,
} from '../status/task-record';
import { documentPdfKey, type DocumentStore } from '../storage/document-store';
import type { TaskQueue } from '../queue/task-queue';
import { hasLocalFile, type TaskJob } from '../tasks/task-job';
import { TaskError, taskFailure } from './task-failure';
import { prepareDocument, safeFileName, type TaskInputDeps } from './task-input';

export interface RunTaskDeps extends TaskInputDeps {
  statuses: StatusStore;
  documents: DocumentStore;
  chunks: ChunkIndex;
  /** Where summaries are handed off to; undefined: no summaries (URL_SUMMARIZER not set). */
  summaryQueue: TaskQueue | undefined;
  /** The engines configured on this worker. */
  engines: Partial<Record<TaskJob['processing'], OcrEngine>>;
  metrics: OcrMetrics;
  logger: Logger;
  workDir: string;
  workerName: string;
}

export type TaskOutcome = 'done' | 'failed' | 'skipped';

export async function runTask(
  job: TaskJob,
  deps: RunTaskDeps,
  signal: AbortSignal,
): Promise<TaskOutcome> {
  const log = deps.logger.child({ taskId: job.task_id });
  const record = await deps.statuses.get(job.task_id);
  if (!record) {
    log.warn('the task has no status record (removed); skipped');
    return 'skipped';
  }
  if (record.status === 'failed') return 'skipped';
  if (record.status === 'done') {
    if (record.summary?.status !== 'done') {
      log.info('delivered again after done: only the summary is handed off again');
      await handOffSummary(job, record.summary, deps, log);
    }
    return 'done';
  }

  const startedAt = Date.now();
  const writes = statusWriter(deps.statuses, job.task_id, log);
  let stage: Stage = 'queued';
  let stageStarted = startedAt;
  const enter = (next: Stage, detail: string) => {
    deps.metrics.stageDuration.observe({ stage }, (Date.now() - stageStarted) / 1000);
    stage = next;
    stageStarted = Date.now();
    return writes.write({ stage: next, progress_pct: STAGES[next], stage_detail: detail });
  };

  await writes.write({
    status: 'processing',
    stage: 'queued',
    progress_pct: STAGES.queued,
    stage_detail: `taken by ${deps.workerName}`,
    started_at: timestampWithoutZone(new Date(startedAt)),
    ...(record.queue_wait_ms === undefined
      ? { queue_wait_ms: Math.max(0, startedAt - Date.parse(job.queued_at)) }
      : {}),
  });

  const dir = await mkdtemp(join(deps.workDir, `task-${safeFileName(job.task_id)}-`));
  try {
    const engine = deps.engines[job.processing];
    if (!engine)
      throw new TaskError(`the ${job.processing} OCR engine is not configured on this worker`, 503);
    const pdf = await prepareDocument(job.inputs, dir, deps, signal);

    await enter('uploading', `sending the file to the ${engine.name} OCR engine`);
    let polling = false;
    let lastPct: number = STAGES.ocr_polling;
    const output = await engine.process(
      {
        path: pdf,
        name: `${safeFileName(basename(job.pdf_name, extname(job.pdf_name)))}.pdf`,
        typeOcr: job.type_ocr,
        representasiCount: job.representasi_count,
      },
      (done, total) => {
        if (!polling) {
          polling = true;
          enter('ocr_polling', 'waiting for the OCR engine').catch(ignore);
        }
        if (total === 0) return;
        const pct = STAGES.ocr_polling + Math.floor((60 * Math.min(done, total)) / total);
        if (pct === lastPct) return;
        lastPct = pct;
        writes
          .write({ progress_pct: pct, stage_detail: `${done} of ${total} pages read` })
          .catch(ignore);
      },
      signal,
    );

    await enter('downloading_result', 'result received from the OCR engine');
    let outputPdfFile: string | undefined;
    if (hasLocalFile(job)) {
      await enter('uploading_pdf', 'storing the PDF');
      const key = documentPdfKey(job.task_id);
      await deps.documents.putFile(key, pdf, 'application/pdf').catch((err: unknown) => {
        throw new TaskError(
          `the PDF could not be stored in object storage: ${errorMessage(err)}`,
          503,
        );
      });
      outputPdfFile = deps.documents.outputUrl(key);
    }

    await enter('indexing', 'saving to the search index');
    const chunks = chunkDocuments(output, {
      taskId: job.task_id,
      pdfName: job.pdf_name,
      // The queue time, not now: a task delivered again writes the same documents.
      uploadedAt: new Date(job.queued_at),
      outputPdfFile,
      metadataDocument: job.metadata_document,
    });
    await deps.chunks.store(job.task_id, chunks).catch((err: unknown) => {
      throw new TaskError(`the search index could not be written: ${errorMessage(err)}`, 503);
    });

    await enter('summarizing', 'handing the document summary off');
    await enter('done', `${chunks.length} chunks indexed`);
    await writes.write({
      status: 'done',
      finished_at: timestampWithoutZone(),
      processing_ms: Date.now() - startedAt,
      ...(deps.summaryQueue ? { summary: { status: 'pending', attempts: 0 } } : {}),
    });
    deps.metrics.tasksFinished.inc({ status: 'done', processing: job.processing });
    log.info(
      { processing: job.processing, chunks: chunks.length, ms: Date.now() - startedAt },
      'task done',
    );
    await removeStagedUploads(job, deps, log);
    await handOffSummary(job, undefined, deps, log);
    return 'done';
  } catch (err) {
    // A stopping worker leaves the task to the next one: not failed, not acknowledged.
    if (signal.aborted) throw err;
    const failure = taskFailure(err, stage);
    log.warn({ stage, err: errorMessage(err) }, 'task failed');
    await writes.write({
      status: 'failed',
      stage_detail: failure.error,
      ...failure,
      finished_at: timestampWithoutZone(),
      processing_ms: Date.now() - startedAt,
    });
    deps.metrics.tasksFinished.inc({ status: 'failed', processing: job.processing });
    await removeStagedUploads(job, deps, log);
    return 'failed';
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Marks a task the queue gave up on (delivered too often: its workers kept dying). */
export async function failExhausted(
  taskId: string,
  deliveries: number,
  statuses: StatusStore,
): Promise<void> {
  await statuses.update(taskId, {
    status: 'failed',
    error: `the task was delivered ${deliveries} times without finishing (its workers stopped or died)`,
    error_code: 500,
    stage_detail: 'given up after repeated deliveries',
    finished_at: timestampWithoutZone(),
  });
}

/** A failed progress write is logged by the writer; the next stage write tells again. */
const ignore = () => undefined;

/** Status writes in the order made: a late progress write never undoes a later stage. */
function statusWriter(statuses: StatusStore, taskId: string, log: Logger) {
  let last: Promise<unknown> = Promise.resolve();
  return {
    write(patch: Partial<TaskRecord>): Promise<void> {
      const next = last.then(() => statuses.update(taskId, patch));
      last = next.catch((err: unknown) =>
        log.warn({ err: errorMessage(err) }, 'status update failed'),
      );
      return next.then(() => undefined);
    },
  };
}

/**
 * Queues the task's summary for the summary slots (before the task's own message is
 * acknowledged: a worker dying in between redelivers the task, which hands off again). A full
 * summaries' queue fails the summary, not the task.
 */
async function handOffSummary(
  job: TaskJob,
  previous: SummaryState | undefined,
  deps: RunTaskDeps,
  log: Logger,
): Promise<void> {
  if (!deps.summaryQueue) {
    deps.metrics.summaries.inc({ outcome: 'skipped' });
    return;
  }
  const queued = await deps.summaryQueue.enqueue(job.task_id, {
    job: JSON.stringify({ pdf_name: job.pdf_name }),
    traceparent: currentTraceparent() ?? '',
  });
  if (queued.queued) return;
  log.error({ waiting: queued.length }, 'the summaries queue is full; the summary is not made');
  deps.metrics.summaries.inc({ outcome: 'failed' });
  await deps.statuses.update(job.task_id, {
    summary: {
      status: 'failed',
      attempts: previous?.attempts ?? 0,
      error: `the summaries queue is full (${queued.length} waiting)`,
      finished_at: timestampWithoutZone(),
    },
  });
}

/**
 * The uploads the API staged are not needed once the task has ended, failed included: a new
 * attempt is a new task with its own upload.
 */
async function removeStagedUploads(job: TaskJob, deps: RunTaskDeps, log: Logger): Promise<void> {
  for (const input of job.inputs) {
    if (input.kind !== 'upload') continue;
    await deps.documents
      .remove(input.key)
      .catch((err: unknown) =>
        log.warn({ key: input.key, err: errorMessage(err) }, 'a staged upload was not removed'),
      );
  }
}
