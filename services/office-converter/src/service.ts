/**
 * Puts the office converter together from its settings. `start` checks that LibreOffice, pandoc
 * and unzip (the .docx fallback) run; nothing else is opened.
 */
import {
  createMetrics,
  multipartUpload,
  requestWorkspace,
  runTool,
  type Logger,
  type Service,
} from '@pelita/kit';
import { createApp } from './app';
import type { Settings } from './config';
import { createConverter } from './convert/converter';
import { createConverterMetrics } from './convert/converter-metrics';

export function createOfficeConverterService(settings: Settings, logger: Logger): Service {
  const metrics = createMetrics();
  const converter = createConverter({
    sofficeBin: settings.SOFFICE_BIN,
    pandocBin: settings.PANDOC_BIN,
    timeoutMs: settings.CONVERSION_TIMEOUT_MS,
    maxConcurrent: settings.MAX_CONCURRENT_CONVERSIONS,
    maxQueued: settings.MAX_QUEUED_CONVERSIONS,
    metrics: createConverterMetrics(metrics.registry),
  });
  const workspace = requestWorkspace(settings.TEMP_DIR, logger);
  const app = createApp({
    logger,
    metrics,
    converter,
    maxMergeFiles: settings.MAX_MERGE_FILES,
    uploadOne: [
      workspace,
      multipartUpload({ field: 'file', maxFiles: 1, maxBytes: settings.MAX_UPLOAD_BYTES }),
    ],
    uploadMany: [
      workspace,
      multipartUpload({
        field: 'files',
        maxFiles: settings.MAX_MERGE_FILES,
        maxBytes: settings.MAX_UPLOAD_BYTES,
      }),
    ],
  });
  return {
    app,
    async start() {
      const version = await runTool(settings.SOFFICE_BIN, ['--version'], { timeoutMs: 30_000 });
      logger.info({ libreoffice: version.trim() }, 'LibreOffice found');
      const pandoc = await runTool(settings.PANDOC_BIN, ['--version'], { timeoutMs: 30_000 });
      logger.info({ pandoc: pandoc.split('\n')[0] }, 'pandoc found');
      await runTool('unzip', ['-v'], { timeoutMs: 10_000 });
    },
    // Conversions end with their requests, which the kit drains before calling this.
    stop: () => Promise.resolve(),
  };
}
