/**
 * One task, from the staged upload to searchable, summarised chunks, through the seed's stages:
 * queued 5 → uploading 10 → ocr_polling 20–80 (the engine's page progress) → downloading_result
 * 85 → uploading_pdf 86 → indexing 88 → summarizing 95 → done 100. Every write is idempotent
 * (deterministic ids and keys), so a task delivered again after a worker died runs again
 * safely; a task already `done` only has its summaries redone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { errorMessage, type Logger } from '@pelita/kit';
import type { ConverterClient } from '../conversion/converter-client';
import { ConversionError } from '../conversion/converter-client';
import { EngineFailedError, EngineTimeoutError, type OcrEngine } from '../engines/engine';
import { chunkDocuments } from '../results/chunks';
import type { ChunkIndex } from '../results/chunk-index';
import type { StatusStore } from '../status/status-store';
import { STAGES, timestampWithoutZone, type Stage, type TaskRecord } from '../status/task-record';
import { documentPdfKey, type DocumentStore } from '../storage/document-store';
import { summarizeDocument, type HandOffDeps } from '../summaries/summarize-hand-off';
import type { Job, JobStore } from './job';

export interface PipelineDeps {
  status: StatusStore;
  jobs: JobStore;
  documents: DocumentStore;
  converter: ConverterClient;
  engines: Partial<Record<'cloud' | 'local', OcrEngine>>;
  chunks: ChunkIndex;
  summarize: Omit<HandOffDeps, 'logger'>;
  logger: Logger;
  tempDir?: string;
}

const isPdfName = (name: string) => extname(name).toLowerCase() === '.pdf';

/** The status and code a failure leaves on the task. */
function failureOf(err: unknown): Pick<TaskRecord, 'error' | 'error_code'> {
  if (err instanceof EngineTimeoutError) return { error: 'Task timeout', error_code: 504 };
  if (err instanceof EngineFailedError) return { error: err.message, error_code: err.code };
  if (err instanceof ConversionError) return { error: err.message, error_code: err.status };
  return { error: errorMessage(err), error_code: 500 };
}

export async function runTask(
  taskId: string,
  queuedAgeMs: number,
  deps: PipelineDeps,
  signal?: AbortSignal,
): Promise<void> {
  const { status, logger } = deps;
  const record = await status.get(taskId);
  const job = await deps.jobs.get(taskId);
  if (!record || !job) {
    logger.warn(
      { taskId },
      'a queued task has no record or job (evicted or never written); dropped',
    );
    return;
  }
  if (record.status === 'done') {
    // Delivered again after the worker died while summarising: redo only that.
    await summarize(job, deps);
    return;
  }
  const started = Date.now();
  const stage = (name: Stage, detail: string, progress: number = STAGES[name]) =>
    status.update(taskId, {
      status: 'processing',
      stage: name,
      progress_pct: progress,
      stage_detail: detail,
    });
  await status.update(taskId, {
    status: 'processing',
    stage: 'queued',
    progress_pct: STAGES.queued,
    stage_detail: 'taken by a worker',
    started_at: timestampWithoutZone(),
    queue_wait_ms: queuedAgeMs,
  });

  const dir = await mkdtemp(join(deps.tempDir ?? tmpdir(), `ocr-${taskId}-`));
  try {
    const engine = deps.engines[job.processing];
    if (!engine) {
      throw new EngineFailedError(`the ${job.processing} OCR engine is not configured`, 503);
    }
    const inputs: string[] = [];
    for (const [index, input] of job.inputs.entries()) {
      const local = join(dir, `${index}-${input.name.replace(/[^\w.-]+/g, '_')}`);
      await deps.documents.getFile(input.key, local);
      inputs.push(local);
    }
    let pdf = inputs[0] as string;
    if (job.merge && inputs.length > 1) {
      await stage('uploading', `merging ${inputs.length} files into one PDF`);
      pdf = join(dir, 'merged.pdf');
      await deps.converter.merge(inputs, pdf, signal);
    } else if (!isPdfName(job.inputs[0]?.name ?? '')) {
      await stage('uploading', `converting ${job.inputs[0]?.name ?? 'the file'} to PDF`);
      pdf = join(dir, 'converted.pdf');
      await deps.converter.toPdf(inputs[0] as string, pdf, signal);
    }

    await stage('uploading', `sending to the ${engine.name} OCR engine`);
    const output = await engine.process(
      {
        path: pdf,
        name: `${taskId}.pdf`,
        typeOcr: job.type_ocr,
        representasiCount: job.representasi_count,
      },
      (done, total) => {
        const progress = STAGES.ocr_polling + Math.floor((60 * Math.min(done, total)) / total);
        void stage('ocr_polling', `OCR: ${done} of ${total} pages`, progress).catch(
          () => undefined,
        );
      },
      signal,
    );
    await stage('downloading_result', `${output.mdContentList.length} pages of results received`);

    await stage('uploading_pdf', 'storing the PDF');
    const key = documentPdfKey(taskId);
    await deps.documents.putFile(key, pdf, 'application/pdf');

    await stage('indexing', 'saving to the search index');
    const chunks = chunkDocuments(output, {
      taskId,
      pdfName: job.pdf_name,
      uploadedAt: new Date(),
      outputPdfFile: deps.documents.publicUrl(key),
      metadataDocument: job.metadata_document,
    });
    await deps.chunks.store(taskId, chunks);

    await stage('summarizing', 'starting the document summary');
    await status.update(taskId, {
      status: 'done',
      stage: 'done',
      progress_pct: STAGES.done,
      stage_detail: `${chunks.length} chunks indexed`,
      processing_ms: Date.now() - started,
      finished_at: timestampWithoutZone(),
    });
    await removeStaged(job, deps);
    await summarize(job, deps);
  } catch (err) {
    if (signal?.aborted) throw err; // stopping: the task goes back to the queue unacknowledged
    await status.update(taskId, {
      status: 'failed',
      ...failureOf(err),
      processing_ms: Date.now() - started,
      finished_at: timestampWithoutZone(),
    });
    await removeStaged(job, deps);
    logger.warn({ taskId, err: errorMessage(err) }, 'task failed');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function summarize(job: Job, deps: PipelineDeps): Promise<void> {
  const page = await deps.chunks.read(job.task_id, 1, 10_000);
  await summarizeDocument(job.task_id, job.pdf_name, page.documents, {
    ...deps.summarize,
    logger: deps.logger,
  });
}

async function removeStaged(job: Job, deps: PipelineDeps): Promise<void> {
  for (const input of job.inputs) {
    await deps.documents
      .remove(input.key)
      .catch((err: unknown) =>
        deps.logger.warn(
          { taskId: job.task_id, key: input.key, err: errorMessage(err) },
          'could not remove a staged upload',
        ),
      );
  }
}
