/**
 * Turns a request into a queued task: the status record first (it claims the task id, so a taken
 * id never touches another task's files), then the uploads staged in object storage (a worker
 * in another pod reads them), then the job in the queue. A task refused at any step (queue
 * full, a dependency down) is undone: no record, no staged object, no message.
 */
import { randomUUID } from 'node:crypto';
import { currentTraceparent, HttpError, type Logger } from '@pelita/kit';
import type { Counter } from 'prom-client';
import type { TaskQueue } from '../queue/task-queue';
import type { StatusStore } from '../status/status-store';
import { timestampWithoutZone } from '../status/task-record';
import { stagedUploadKey, type DocumentStore } from '../storage/document-store';
import type { PROCESSING, TaskInput, TaskJob, TYPE_OCR } from '../tasks/task-job';
import type { SubmittedInput } from './task-inputs';
import type { TaskAccepted } from './task-schemas';
import { using } from './unavailable';

export type Processing = (typeof PROCESSING)[number];

export interface TaskOptions {
  processing: Processing;
  type_ocr: (typeof TYPE_OCR)[number];
  representasi_count: number;
  metadata_document?: Record<string, unknown> | undefined;
}

export interface TaskRequest {
  /** A custom id; a new UUID when absent. */
  taskId?: string | undefined;
  /** One input, or several to merge into one PDF, in order. */
  inputs: SubmittedInput[];
  pdfName: string;
  options: TaskOptions;
}

export type ItemOutcome = TaskAccepted | { error: { code: string; message: string } };

export interface TaskSubmission {
  /**
   * The engine a request runs on, decided before any input is looked at: the one it names, else
   * the seed's default (`cloud`), else the one this install has. An engine this install has no
   * URL for is refused (400).
   */
  engineFor(processing: Processing | undefined): Processing;
  submit(request: TaskRequest, log: Logger): Promise<TaskAccepted>;
  /**
   * One task per request, in order (the bulk endpoints). Once one is refused (queue full, a
   * dependency down) the rest are not tried and carry the same error; refused from the first,
   * the error is thrown.
   */
  submitEach(requests: TaskRequest[], log: Logger): Promise<ItemOutcome[]>;
}

export interface TaskSubmissionDeps {
  statuses: StatusStore;
  queue: TaskQueue;
  documents: DocumentStore;
  /** Which engines this install has a URL for. */
  engines: Record<Processing, boolean>;
  /** Tasks submitted, by outcome (`queued`, `queue_full`) and engine. */
  submitted: Counter<'outcome' | 'processing'>;
}

/** Seconds a client is told to wait (`Retry-After`) when the queue is full. */
export const RETRY_AFTER_SECONDS = 30;

export function createTaskSubmission(deps: TaskSubmissionDeps): TaskSubmission {
  const { statuses, queue, documents, engines, submitted } = deps;

  function engineFor(processing: Processing | undefined): Processing {
    const chosen = processing ?? (engines.cloud || !engines.local ? 'cloud' : 'local');
    if (engines[chosen]) return chosen;
    const other = chosen === 'cloud' ? 'local' : 'cloud';
    throw new HttpError(
      400,
      'engine_not_configured',
      engines[other]
        ? `The ${chosen} OCR engine is not configured on this install; use processing=${other}`
        : 'No OCR engine is configured on this install',
    );
  }

  async function stage(taskId: string, inputs: SubmittedInput[], staged: string[]) {
    // Every put settles before this returns: an undo must not race a put still under way.
    const results = await Promise.allSettled(
      inputs.map(async (input, n): Promise<TaskInput> => {
        if (input.kind === 'url') return { kind: 'url', url: input.url };
        const key = stagedUploadKey(taskId, n);
        staged.push(key);
        await using('storage', () => documents.putFile(key, input.path, input.contentType));
        return { kind: 'upload', key, name: input.name };
      }),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return results.map((result) => (result as PromiseFulfilledResult<TaskInput>).value);
  }

  async function undo(taskId: string, staged: string[], log: Logger) {
    const removals = await Promise.allSettled([
      ...staged.map((key) => documents.remove(key)),
      statuses.remove(taskId),
    ]);
    const failure = removals.find((result) => result.status === 'rejected');
    if (failure) {
      log.warn({ err: failure.reason, task_id: taskId }, 'could not undo all of a refused task');
    }
  }

  async function submit(request: TaskRequest, log: Logger): Promise<TaskAccepted> {
    const { options } = request;
    engineFor(options.processing);
    const taskId = request.taskId ?? randomUUID();
    const created = await using('redis', () =>
      statuses.create({
        task_id: taskId,
        status: 'pending',
        stage: 'pending',
        progress_pct: 0,
        stage_detail: 'waiting in the queue',
        created_at: timestampWithoutZone(),
      }),
    );
    if (!created) throw new HttpError(409, 'task_exists', `Task ${taskId} already exists`);

    const staged: string[] = [];
    try {
      const job: TaskJob = {
        task_id: taskId,
        processing: options.processing,
        type_ocr: options.type_ocr,
        representasi_count: options.representasi_count,
        inputs: await stage(taskId, request.inputs, staged),
        pdf_name: request.pdfName,
        ...(options.metadata_document ? { metadata_document: options.metadata_document } : {}),
        queued_at: new Date().toISOString(),
      };
      const traceparent = currentTraceparent();
      const result = await using('redis', () =>
        queue.enqueue(taskId, {
          job: JSON.stringify(job),
          ...(traceparent ? { traceparent } : {}),
        }),
      );
      if (!result.queued) {
        submitted.inc({ outcome: 'queue_full', processing: options.processing });
        throw new HttpError(
          429,
          'queue_full',
          `The task queue is full (${result.length} tasks waiting or running); try again in ` +
            `${RETRY_AFTER_SECONDS} seconds`,
        );
      }
    } catch (err) {
      await undo(taskId, staged, log);
      throw err;
    }
    submitted.inc({ outcome: 'queued', processing: options.processing });
    log.info(
      { task_id: taskId, processing: options.processing, inputs: request.inputs.length },
      'task queued',
    );
    return { task_id: taskId, status: 'pending', processing_type: options.processing };
  }

  return {
    engineFor,
    submit,
    async submitEach(requests, log) {
      const outcomes: ItemOutcome[] = [];
      let refused: HttpError | undefined;
      for (const request of requests) {
        if (refused) {
          outcomes.push({ error: { code: refused.code, message: refused.message } });
          continue;
        }
        try {
          outcomes.push(await submit(request, log));
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          if (outcomes.length === 0) throw err;
          refused = err;
          outcomes.push({ error: { code: err.code, message: err.message } });
        }
      }
      return outcomes;
    },
  };
}
