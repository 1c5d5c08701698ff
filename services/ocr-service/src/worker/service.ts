/**
 * The OCR worker put together from the settings: the shared state, the engines configured, the
 * converter, the summarizer (clients only: nothing connects before its first use), and at
 * `start` two pools of slots: `WORKER_CONCURRENCY` taking OCR tasks from the task queue, and
 * `SUMMARY_CONCURRENCY` taking summaries from their own queue, so OCR never waits on the model.
 * Its HTTP side is `app.ts`.
 */
import {
  createMetrics,
  createSummarizerClient,
  downloadToFile,
  moveInBackground,
  type Logger,
  type Service,
} from '@pelita/kit';
import type { Settings } from '../config';
import { createConverterClient } from '../conversion/converter-client';
import { createCloudEngine } from '../engines/cloud-engine';
import type { OcrEngine } from '../engines/engine';
import { createLocalEngine } from '../engines/local-engine';
import { createOcrMetrics, type OcrMetrics } from '../ocr-metrics';
import { connectRedis, openSharedState, queueOptions, summaryQueueOptions } from '../shared-state';
import { TaskJobSchema } from '../tasks/task-job';
import { timestampWithoutZone } from '../status/task-record';
import { createWorkerApp } from './app';
import { failSummaryExhausted, runSummary, SummaryJobSchema } from './run-summary';
import { failExhausted, runTask, type RunTaskDeps } from './run-task';
import { startWorkerLoop, type WorkerLoop } from './worker-loop';

/**
 * The seed's summarise call: the chunks as a JSON text file with `chunk_size=10000`,
 * `target_context=128000`, `enable_ner=true`; 10 s to connect, 600 s to read, 3 retries.
 */
const SUMMARIZER_CALL = {
  connectTimeoutMs: 10_000,
  readTimeoutMs: 600_000,
  retries: 3,
  chunkSize: 10_000,
  targetContext: 128_000,
  enableNer: true,
};

function createEngines(settings: Settings, metrics: OcrMetrics) {
  const engines: Partial<Record<'cloud' | 'local', OcrEngine>> = {};
  const polling = {
    pollIntervalMs: settings.OCR_POLL_INTERVAL_MS,
    maxPolls: settings.MAX_WAIT_OCR,
    requestTimeoutMs: settings.OCR_REQUEST_TIMEOUT_MS,
  };
  if (settings.OCR_ENGINE_LOCAL_URL)
    engines.local = createLocalEngine({
      ...polling,
      baseUrl: settings.OCR_ENGINE_LOCAL_URL,
      onPoll: () => metrics.enginePolls.inc({ engine: 'local' }),
    });
  if (settings.OCR_ENGINE_CLOUD_URL)
    engines.cloud = createCloudEngine({
      ...polling,
      baseUrl: settings.OCR_ENGINE_CLOUD_URL,
      apiKey: settings.OCR_ENGINE_CLOUD_API_KEY ?? '',
      downloadTimeoutMs: settings.DOWNLOAD_TIMEOUT_MS,
      maxResultEntries: settings.OCR_RESULT_MAX_ENTRIES,
      maxResultBytes: settings.OCR_RESULT_MAX_BYTES,
      onPoll: () => metrics.enginePolls.inc({ engine: 'cloud' }),
    });
  return engines;
}

export interface WorkerService extends Service {
  /** Tasks running now (tests wait on it). */
  running(): number;
}

export function createWorkerService(settings: Settings, logger: Logger): WorkerService {
  const metrics = createMetrics();
  const ocrMetrics = createOcrMetrics(metrics.registry);
  const state = openSharedState(settings);
  const engines = createEngines(settings, ocrMetrics);
  const summarizer = settings.URL_SUMMARIZER
    ? createSummarizerClient({
        ...SUMMARIZER_CALL,
        baseUrl: settings.URL_SUMMARIZER,
        backoffMs: 1000,
      })
    : undefined;
  const deps: RunTaskDeps = {
    ...state,
    summaryQueue: summarizer ? state.summaryQueue : undefined,
    engines,
    converter: settings.URL_CONVERTER
      ? createConverterClient({
          baseUrl: settings.URL_CONVERTER,
          timeoutMs: settings.CONVERSION_TIMEOUT_MS,
        })
      : undefined,
    download: (url: string, dest: string, signal: AbortSignal) =>
      downloadToFile(url, dest, {
        timeoutMs: settings.DOWNLOAD_TIMEOUT_MS,
        maxBytes: settings.MAX_DOWNLOAD_BYTES,
        allowed: settings.ALLOWED_TARGETS,
        signal,
      }),
    metrics: ocrMetrics,
    logger,
    workDir: settings.WORK_DIR,
    workerName: settings.WORKER_NAME,
  };
  const app = createWorkerApp({
    logger,
    metrics,
    readiness: { redis: () => state.redis.ping() },
  });
  const loops: WorkerLoop[] = [];

  return {
    app,
    running: () => loops.reduce((sum, loop) => sum + loop.running(), 0),
    async start() {
      await state.queue.ensure();
      await state.summaryQueue.ensure();
      await state.chunks.ensure();
      await state.summaries.ensure();
      void moveInBackground(logger, settings.LEGACY_INDEX_PDF_PARSING_RESULTS, (legacy) =>
        state.chunks.moveLegacy(legacy),
      );
      void moveInBackground(logger, settings.LEGACY_INDEX_DOCUMENT_SUMMARIZE, (document) =>
        state.summaries.moveLegacy({ document }),
      );
      void moveInBackground(logger, settings.LEGACY_INDEX_DOCUMENT_SUMMARIZE_CHUNK, (chunk) =>
        state.summaries.moveLegacy({ chunk }),
      );
      if (!settings.URL_SUMMARIZER) logger.warn('URL_SUMMARIZER is not set: no summaries');
      if (Object.keys(engines).length === 0)
        logger.warn('no OCR engine is configured: every task will fail');
      loops.push(
        startWorkerLoop({
          consumer: settings.WORKER_NAME,
          concurrency: settings.WORKER_CONCURRENCY,
          queue: queueOptions(settings),
          connect: () => connectRedis(settings),
          parse: (task) => TaskJobSchema.safeParse(safeJson(task.job)).data,
          run: (job, _task, signal) => runTask(job, deps, signal),
          unreadable: (task) =>
            state.statuses.update(task.taskId, {
              status: 'failed',
              error: 'the queued task could not be read',
              error_code: 500,
            }),
          exhausted: (task) => failExhausted(task.taskId, task.deliveries, state.statuses),
          span: (job, task) => ({
            name: 'ocr task',
            attributes: { 'ocr.task_id': task.taskId, 'ocr.processing': job.processing },
          }),
          logger,
        }),
      );
      if (summarizer && settings.SUMMARY_CONCURRENCY > 0) {
        const summaryDeps = {
          ...state,
          summarizer,
          metrics: ocrMetrics,
          logger,
          workDir: settings.WORK_DIR,
        };
        loops.push(
          startWorkerLoop({
            // Apart from the OCR slots' names: a consumer belongs to one group each anyway.
            consumer: `${settings.WORKER_NAME}-summary`,
            concurrency: settings.SUMMARY_CONCURRENCY,
            queue: summaryQueueOptions(settings),
            connect: () => connectRedis(settings),
            parse: (task) => SummaryJobSchema.safeParse(safeJson(task.job)).data,
            run: (job, task, signal) => runSummary(job, task, summaryDeps, signal),
            unreadable: (task) =>
              state.statuses.update(task.taskId, {
                summary: {
                  status: 'failed',
                  attempts: task.deliveries,
                  error: 'the queued summary could not be read',
                  finished_at: timestampWithoutZone(),
                },
              }),
            exhausted: (task) => failSummaryExhausted(task, state.statuses),
            span: (_job, task) => ({
              name: 'ocr summary',
              attributes: { 'ocr.task_id': task.taskId },
            }),
            logger,
          }),
        );
      }
    },
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop(settings.SHUTDOWN_TIMEOUT_MS)));
      await state.close();
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
