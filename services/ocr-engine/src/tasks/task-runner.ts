/**
 * Runs tasks from a bounded queue, `maxConcurrent` at a time, in submission order. Each state
 * change is saved before it is reported, so a restart resumes what was pending or running; a
 * stop hands running tasks back to the queue (saved as pending) instead of failing them.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, inTraceOf, type Logger } from '@pelita/kit';
import { extractDocument, type ExtractOptions } from '../extract/document';
import type { DescribeImage } from '../extract/image-descriptions';
import type { OcrOptions } from '../extract/ocr';
import type { EngineMetrics } from './engine-metrics';
import { isFinished, type TaskRecord } from './task-record';
import type { TaskResult, TaskStore } from './task-store';

export class QueueFullError extends Error {
  constructor(readonly waiting: number) {
    super(`Server is at maximum capacity: ${waiting} tasks are waiting. Please try again later.`);
    this.name = 'QueueFullError';
  }
}

export interface TaskRunnerOptions {
  store: TaskStore;
  logger: Logger;
  metrics: EngineMetrics;
  maxConcurrent: number;
  maxQueued: number;
  retentionMs: number;
  ocr: Omit<OcrOptions, 'signal'>;
  minTextChars: number;
  describeImage: DescribeImage | undefined;
}

export interface TaskRunner {
  /** Loads the saved tasks and queues again those that were pending or running. */
  start(): Promise<void>;
  /** Saves the task and queues it; throws QueueFullError when the queue is full. */
  submit(record: TaskRecord): Promise<void>;
  /** Tasks ahead of this one in the queue, or undefined when it is not waiting. */
  queuedAhead(taskId: string): number | undefined;
  stats(): Record<'queued' | 'processing' | 'completed' | 'failed', number>;
  /** Stops taking tasks, cancels the running ones and saves them as pending. */
  stop(): Promise<void>;
}

const now = () => new Date().toISOString();

export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const { store, logger, metrics } = options;
  const queue: string[] = [];
  const running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  let stopping = false;
  let cleanupTimer: NodeJS.Timeout | undefined;

  function pump(): void {
    while (!stopping && running.size < options.maxConcurrent && queue.length > 0) {
      const taskId = queue.shift() as string;
      const abort = new AbortController();
      const done = run(taskId, abort.signal).finally(() => {
        running.delete(taskId);
        metrics.queueDepth.set(queue.length);
        pump();
      });
      running.set(taskId, { abort, done });
    }
    metrics.queueDepth.set(queue.length);
  }

  /**
   * Runs the task in a span of the trace of the request that submitted it (a child of that
   * request's span): a task runs after the ones before it, or after a restart, never in the
   * context of whatever called `pump`.
   */
  async function run(taskId: string, signal: AbortSignal): Promise<void> {
    const record = store.get(taskId);
    if (!record) return;
    await inTraceOf(record.traceparent, 'ocr-engine task', async (span) => {
      span.setAttribute('ocr_engine.task_id', taskId);
      span.setAttribute('ocr_engine.files', record.uploads.length);
      span.setAttribute('ocr_engine.outcome', await runTraced(record, signal));
    });
  }

  async function runTraced(
    record: TaskRecord,
    signal: AbortSignal,
  ): Promise<'completed' | 'failed' | 'handed back'> {
    const taskId = record.task_id;
    const started = Date.now();
    await store.save({ ...record, status: 'processing', started_at: now() });
    try {
      const result = await extractAll(taskId, signal);
      await store.saveResult(taskId, result);
      await finish(taskId, { status: 'completed', error: null });
      metrics.tasks.inc({ outcome: 'completed' });
      logger.info({ taskId, ms: Date.now() - started }, 'task completed');
      return 'completed';
    } catch (err) {
      if (signal.aborted && stopping) {
        // Handed back: the next start runs it again from the beginning.
        await saveQuietly({
          ...(store.get(taskId) as TaskRecord),
          status: 'pending',
          started_at: null,
        });
        return 'handed back';
      }
      await finish(taskId, { status: 'failed', error: errorMessage(err) });
      metrics.tasks.inc({ outcome: 'failed' });
      logger.warn({ taskId, err: errorMessage(err) }, 'task failed');
      return 'failed';
    } finally {
      metrics.taskDuration.observe((Date.now() - started) / 1000);
      await rm(join(store.folder(taskId), 'work'), { recursive: true, force: true });
    }
  }

  async function extractAll(taskId: string, signal: AbortSignal): Promise<TaskResult> {
    const record = store.get(taskId) as TaskRecord;
    const folder = store.folder(taskId);
    const workDir = join(folder, 'work');
    await mkdir(workDir, { recursive: true });
    const pagesDone: number[] = [];
    const pagesTotal: number[] = [];
    const result: TaskResult = {};
    for (const [index, upload] of record.uploads.entries()) {
      const stem = record.file_names[index] as string;
      const extractOptions: ExtractOptions = {
        parseMethod: record.options.parse_method,
        startPage: record.options.start_page_id,
        endPage: record.options.end_page_id,
        imageAnalysis: record.options.image_analysis,
        maxImages: record.options.max_images,
        minTextChars: options.minTextChars,
        ocr: { ...options.ocr, signal },
        describeImage: options.describeImage,
        workDir: join(workDir, String(index)),
        onPage: (done, total) => {
          pagesDone[index] = done;
          pagesTotal[index] = total;
          const progress = {
            extracted_pages: pagesDone.reduce((a, b) => a + b, 0),
            total_pages: pagesTotal.reduce((a, b) => a + b, 0),
          };
          const current = store.get(taskId);
          if (current) void saveQuietly({ ...current, extract_progress: progress });
        },
      };
      await mkdir(extractOptions.workDir, { recursive: true });
      const extraction = await extractDocument(
        join(folder, upload.file),
        { kind: upload.kind, mimeType: upload.mime_type },
        extractOptions,
      );
      metrics.pages.inc(pagesDone[index] ?? 0);
      const images = [];
      for (const image of extraction.images) {
        const file = join('images', String(index), image.name);
        await mkdir(join(folder, 'images', String(index)), { recursive: true });
        await copyFile(image.path, join(folder, file));
        images.push({ name: image.name, file });
      }
      result[stem] = { md_content: extraction.markdown, content_list: extraction.items, images };
    }
    return result;
  }

  async function finish(taskId: string, outcome: Pick<TaskRecord, 'status' | 'error'>) {
    const record = store.get(taskId) as TaskRecord;
    await store.save({ ...record, ...outcome, completed_at: now() });
    // The uploads are not needed any more; the result stays until the retention ends.
    await rm(join(store.folder(taskId), 'input'), { recursive: true, force: true });
  }

  async function saveQuietly(record: TaskRecord): Promise<void> {
    await store
      .save(record)
      .catch((err: unknown) =>
        logger.error({ err, taskId: record.task_id }, 'could not save a task record'),
      );
  }

  async function removeExpired(): Promise<void> {
    const cutoff = Date.now() - options.retentionMs;
    for (const record of store.all()) {
      if (isFinished(record) && record.completed_at && Date.parse(record.completed_at) < cutoff) {
        await store.remove(record.task_id);
      }
    }
  }

  return {
    async start() {
      const records = await store.load();
      const unfinished = records
        .filter((record) => !isFinished(record))
        .sort((a, b) => a.created_at.localeCompare(b.created_at));
      for (const record of unfinished) {
        if (record.status === 'processing') {
          await store.save({ ...record, status: 'pending', started_at: null });
        }
        queue.push(record.task_id);
      }
      if (unfinished.length > 0) logger.info({ tasks: unfinished.length }, 'resuming saved tasks');
      await removeExpired();
      const every = Math.min(60_000, options.retentionMs);
      cleanupTimer = setInterval(() => void removeExpired().catch(() => undefined), every);
      cleanupTimer.unref();
      pump();
    },
    async submit(record) {
      if (stopping) throw new QueueFullError(queue.length);
      if (queue.length >= options.maxQueued) throw new QueueFullError(queue.length);
      await store.save(record);
      queue.push(record.task_id);
      pump();
    },
    queuedAhead(taskId) {
      const index = queue.indexOf(taskId);
      return index === -1 ? undefined : index;
    },
    stats() {
      const records = store.all();
      const count = (status: TaskRecord['status']) =>
        records.filter((r) => r.status === status).length;
      return {
        queued: queue.length,
        processing: running.size,
        completed: count('completed'),
        failed: count('failed'),
      };
    },
    async stop() {
      stopping = true;
      clearInterval(cleanupTimer);
      for (const task of running.values()) task.abort.abort();
      await Promise.all([...running.values()].map((task) => task.done));
    },
  };
}
