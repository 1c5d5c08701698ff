/**
 * Puts the OCR task API together from its settings: the shared state (queue, status records,
 * indexes, object storage; nothing connects before its first use), metrics, the app. `start`
 * creates the queue's consumer group, the result index and the bucket when missing (and, for
 * public documents, the read grant on `ocr-documents/`); `stop` closes the connections.
 */
import {
  createMetrics,
  errorMessage,
  requestWorkspace,
  type Logger,
  type Service,
} from '@pelita/kit';
import { createSubmittedCounter } from './api-metrics';
import { createApp } from './app';
import { createTaskSubmission } from './task-submission';
import type { Settings } from '../config';
import { registerStateGauges } from '../ocr-metrics';
import { openSharedState } from '../shared-state';
import { documentPdfKey } from '../storage/document-store';

export function createOcrApiService(settings: Settings, logger: Logger): Service {
  const state = openSharedState(settings);
  const metrics = createMetrics();
  registerStateGauges(metrics.registry, state);
  const engines = {
    cloud: settings.OCR_ENGINE_CLOUD_URL !== undefined,
    local: settings.OCR_ENGINE_LOCAL_URL !== undefined,
  };
  const app = createApp({
    logger,
    metrics,
    bodyLimit: settings.BODY_LIMIT,
    tasks: {
      submission: createTaskSubmission({
        statuses: state.statuses,
        queue: state.queue,
        documents: state.documents,
        engines,
        submitted: createSubmittedCounter(metrics.registry),
      }),
      statuses: state.statuses,
      workspace: requestWorkspace(settings.TEMP_DIR, logger),
      maxUploadBytes: settings.MAX_UPLOAD_BYTES,
      maxInputs: settings.MAX_FILES_PER_REQUEST,
    },
    documents: {
      chunks: state.chunks,
      statuses: state.statuses,
      index: settings.INDEX_PDF_PARSING_RESULTS,
      pdfLink: (pdfId) => state.documents.outputUrl(documentPdfKey(pdfId)),
    },
    health: { clusterStatus: () => state.chunks.clusterStatus(), engines, timeoutMs: 5000 },
    readiness: {
      redis: () => state.redis.ping(),
      opensearch: () => state.search.ping(),
    },
  });
  return {
    app,
    async start() {
      await state.queue.ensure();
      await state.chunks.ensure();
      await state.documents.ensureBucket();
      // Public documents need the read grant; a storage that refuses it (a CDN serving them
      // instead, public policies blocked) is told in the log, and the API still starts.
      await state.documents
        .ensureOutputAccess()
        .catch((err: unknown) =>
          logger.warn(
            { err: errorMessage(err) },
            'ocr-documents/ could not be made public; the PDF links need another way in',
          ),
        );
    },
    // Requests have drained by now (the kit waits for running handlers first).
    stop: () => state.close(),
  };
}
