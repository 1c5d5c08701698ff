/**
 * Puts the OCR engine together from its settings: the task store and runner, the optional
 * vision model, the app. `start` checks the tools and languages, then resumes saved tasks.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createMetrics,
  multipartUpload,
  requestWorkspace,
  type Logger,
  type Service,
} from '@pelita/kit';
import { createApp } from './app';
import type { Settings } from './config';
import { createImageDescriber } from './extract/image-descriptions';
import { checkTools } from './extract/tool-check';
import { createEngineMetrics } from './tasks/engine-metrics';
import { createTaskRunner } from './tasks/task-runner';
import { createTaskStore } from './tasks/task-store';

const VERSION = '0.1.0';

export function createOcrEngineService(settings: Settings, logger: Logger): Service {
  const metrics = createMetrics();
  const store = createTaskStore(settings.TASK_DIR, logger);
  const describeImage =
    settings.VISION_BASE_URL && settings.VISION_MODEL
      ? createImageDescriber({
          baseUrl: settings.VISION_BASE_URL,
          apiKey: settings.VISION_API_KEY,
          model: settings.VISION_MODEL,
          timeoutMs: settings.VISION_TIMEOUT_MS,
        })
      : undefined;
  const runner = createTaskRunner({
    store,
    logger,
    metrics: createEngineMetrics(metrics.registry),
    maxConcurrent: settings.MAX_CONCURRENT_TASKS,
    maxQueued: settings.MAX_QUEUED_TASKS,
    retentionMs: settings.TASK_RETENTION_SECONDS * 1000,
    ocr: {
      languages: settings.OCR_LANGUAGES,
      dpi: settings.OCR_DPI,
      timeoutMs: settings.TOOL_TIMEOUT_MS,
    },
    minTextChars: settings.MIN_TEXT_CHARS,
    describeImage,
  });
  // Uploads land beside the tasks, so accepting one is a rename on the same file system.
  const uploadRoot = join(settings.TASK_DIR, 'uploads');
  const app = createApp({
    logger,
    metrics,
    store,
    runner,
    version: VERSION,
    upload: [
      requestWorkspace(uploadRoot, logger),
      multipartUpload({
        field: 'files',
        maxFiles: settings.MAX_FILES,
        maxBytes: settings.MAX_UPLOAD_BYTES,
      }),
    ],
  });
  return {
    app,
    async start() {
      await checkTools(settings.OCR_LANGUAGES, settings.TOOL_TIMEOUT_MS);
      await mkdir(uploadRoot, { recursive: true });
      if (!describeImage)
        logger.info('VISION_BASE_URL not set: images are listed without descriptions');
      await runner.start();
    },
    stop: () => runner.stop(),
  };
}
