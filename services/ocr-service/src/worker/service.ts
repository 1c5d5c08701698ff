/**
 * The OCR worker put together from the settings: the shared state, the engines configured, the
 * converter, the summarizer (clients only: nothing connects before its first use), and at
 * `start` the slots that take tasks from the queue. Its HTTP side is `app.ts`.
 */
import {
  createMetrics,
  createSummarizerClient,
  downloadToFile,
  type Logger,
  type Service,
} from '@pelita/kit';
import type { Settings } from '../config';
import { createConverterClient } from '../conversion/converter-client';
import { createCloudEngine } from '../engines/cloud-engine';
import type { OcrEngine } from '../engines/engine';
import { createLocalEngine } from '../engines/local-engine';
import { createOcrMetrics, type OcrMetrics } from '../ocr-metrics';
import { connectRedis, openSharedState, queueOptions } from '../shared-state';
import { createWorkerApp } from './app';
import { runTask, type RunTaskDeps } from './run-task';
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
  const deps: RunTaskDeps = {
    ...state,
    engines,
    converter: settings.URL_CONVERTER
      ? createConverterClient({
          baseUrl: settings.URL_CONVERTER,
          timeoutMs: settings.CONVERSION_TIMEOUT_MS,
        })
      : undefined,
    summarizer: settings.URL_SUMMARIZER
      ? createSummarizerClient({
          ...SUMMARIZER_CALL,
          baseUrl: settings.URL_SUMMARIZER,
          backoffMs: 1000,
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
  let loop: WorkerLoop | undefined;

  return {
    app,
    running: () => loop?.running() ?? 0,
    async start() {
      await state.queue.ensure();
      await state.chunks.ensure();
      if (!settings.URL_SUMMARIZER) logger.warn('URL_SUMMARIZER is not set: no summaries');
      if (Object.keys(engines).length === 0)
        logger.warn('no OCR engine is configured: every task will fail');
      loop = startWorkerLoop({
        consumer: settings.WORKER_NAME,
        concurrency: settings.WORKER_CONCURRENCY,
        queue: queueOptions(settings),
        connect: () => connectRedis(settings),
        statuses: state.statuses,
        run: (job, signal) => runTask(job, deps, signal),
        logger,
      });
    },
    async stop() {
      await loop?.stop(settings.SHUTDOWN_TIMEOUT_MS);
      await state.close();
    },
  };
}
