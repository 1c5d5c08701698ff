/**
 * The core backend with the whole document chain behind it: the real ocr-service task API and
 * OCR worker, the office converter, the local OCR engine (tesseract, poppler) and the summarizer
 * on the LLM stand-in (ocr-service's own test stack), all on the test servers.
 */
import { createLogger, serveInProcess, type RunningServer } from '@pelita/kit';
import { createOcrApiService, createWorkerService } from '@pelita/ocr-service';
import {
  startOcrStack,
  type OcrStack,
} from '../../../../ocr-service/test/integration/support/ocr-stack';
import { startCoreStack, type CoreStack } from './core-stack';

export interface DocumentStack {
  core: CoreStack;
  ocr: OcrStack;
  /** Stops the OCR worker (a task then waits in the queue) or starts it again. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** `env`: the core backend's settings; `ocrEnv`: the ocr-service's (API and worker). */
export async function startDocumentStack(
  env: Record<string, string> = {},
  ocrEnv: Record<string, string> = {},
): Promise<DocumentStack> {
  const ocr = await startOcrStack();
  const logger = createLogger({ name: 'ocr', level: 'silent' });
  const settings = ocr.settingsWith(ocrEnv);
  const api = await serveInProcess(createOcrApiService(settings, logger), logger);
  const startWorker = () => serveInProcess(createWorkerService(settings, logger), logger);
  let worker: RunningServer | undefined = await startWorker();
  const core = await startCoreStack({
    URL_OCR: api.url,
    OCR_POLL_INTERVAL_MS: '100',
    INDEX_PDF_PARSING_RESULTS: ocr.env.INDEX_PDF_PARSING_RESULTS!,
    INDEX_DOCUMENT_SUMMARIZE: ocr.env.INDEX_DOCUMENT_SUMMARIZE!,
    INDEX_DOCUMENT_SUMMARIZE_CHUNK: ocr.env.INDEX_DOCUMENT_SUMMARIZE_CHUNK!,
    S3_ENDPOINT: ocr.env.S3_ENDPOINT!,
    S3_ACCESS_KEY: ocr.env.S3_ACCESS_KEY!,
    S3_SECRET_KEY: ocr.env.S3_SECRET_KEY!,
    S3_REGION: ocr.env.S3_REGION!,
    S3_BUCKET: ocr.env.S3_BUCKET!,
    TEMP_DIR: ocr.dir,
    // The stand-in answers chat and reports, and embeds passages: retrieval is hybrid here.
    BASE_URL_LOCAL: ocr.llm.url,
    MODEL_LOCAL: 'pelita-stub',
    EMBEDDINGS_MODEL: 'pelita-stub',
    ...env,
  });
  return {
    core,
    ocr,
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
    },
    async startWorker() {
      worker ??= await startWorker();
    },
    async stop() {
      await core.stop();
      await worker?.stop();
      await api.stop();
      await ocr.close();
    },
  };
}
