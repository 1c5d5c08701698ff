/**
 * The worker's pipeline end to end on real servers: the local engine (poppler + tesseract), the
 * cloud double, LibreOffice, the summarizer on the LLM stand-in, Redis, OpenSearch and MinIO.
 * Tasks are queued as the API queues them; the worker runs in-process.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveInProcess, type RunningServer } from '@pelita/kit';
import {
  captureLogger,
  eventually,
  queueTask,
  startOcrStack,
  waitForEnd,
  type OcrStack,
} from './support/ocr-stack';
import { officeFile, pngOf, textPdf } from './support/documents';
import type { Settings } from '../../src/config';
import { openSharedState, type SharedState } from '../../src/shared-state';
import { STAGES } from '../../src/status/task-record';
import { documentPdfKey } from '../../src/storage/document-store';
import { createWorkerService } from '../../src/worker/service';

jest.setTimeout(180_000);

const report = (page: number) => `Page ${page}: quarterly revenue grew in the Jakarta office`;

describe('ocr worker', () => {
  let stack: OcrStack;
  let state: SharedState;
  let dir: string;
  const workers: RunningServer[] = [];

  async function startWorker(settings: Settings): Promise<RunningServer> {
    const logger = captureLogger('ocr-worker', stack.logs);
    const worker = await serveInProcess(createWorkerService(settings, logger), logger);
    workers.push(worker);
    return worker;
  }

  async function file(name: string, bytes: Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  }

  const job = (taskId: string, overrides: Partial<Parameters<typeof queueTask>[1]> = {}) => ({
    task_id: taskId,
    processing: 'local' as const,
    type_ocr: 'ekstrak_only' as const,
    representasi_count: 3,
    pdf_name: `${taskId}.pdf`,
    inputs: [],
    ...overrides,
  });

  const stageCounts = async (worker: RunningServer) => {
    const text = await (await fetch(`${worker.url}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const [, stage, count] of text.matchAll(
      /^ocr_stage_duration_seconds_count\{stage="(\w+)"\} (\d+)$/gm,
    ))
      counts[stage as string] = Number(count);
    return counts;
  };

  beforeAll(async () => {
    stack = await startOcrStack();
    dir = await mkdtemp(join(stack.dir, 'inputs-'));
    state = openSharedState(stack.settings);
    await state.documents.ensureBucket();
    await startWorker(stack.settings);
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await state.close();
    await stack.close();
  });

  it('takes a 12-page upload through every stage to done: 3 chunks, stored PDF, both summaries', async () => {
    const path = await file('report.pdf', await textPdf(12, report));
    await queueTask(
      state,
      job('upload-12', { inputs: [{ kind: 'file', path, name: 'report.pdf' }] }),
    );
    const seen = await waitForEnd(state, 'upload-12');

    const last = seen.at(-1);
    expect(last).toMatchObject({ status: 'done', stage: 'done', progress_pct: 100 });
    expect(last?.started_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+$/);
    expect(last?.queue_wait_ms).toBeGreaterThanOrEqual(0);
    expect(last?.processing_ms).toBeGreaterThan(0);
    expect(last?.error).toBeUndefined();
    // Progress only moves forward, through the seed's stages in their order.
    const percents = seen.map((record) => record.progress_pct);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    const order = Object.keys(STAGES);
    const stages = seen.map((record) => order.indexOf(record.stage));
    expect(stages).toEqual([...stages].sort((a, b) => a - b));
    expect(seen.some((record) => record.stage === 'ocr_polling')).toBe(true);

    const { documents, total_documents } = await state.chunks.read('upload-12', 1, 10);
    expect(total_documents).toBe(3);
    expect(documents.map((chunk) => chunk.id)).toEqual(
      [1, 2, 3].map((n) => `upload-12_chunk_${n}`),
    );
    expect(documents[0]).toMatchObject({
      pdf_id: 'upload-12',
      pdf_name: 'upload-12.pdf',
      chunk_number: 1,
      parse_method: 'auto',
    });
    // A presigned link to the stored PDF, which MinIO serves to whoever holds it.
    const pdfUrl = documents[0]?.output_pdf_file ?? '';
    expect(pdfUrl).toContain(`/ocr-documents/upload-12.pdf?X-Amz-`);
    const served = await fetch(pdfUrl);
    expect(served.status).toBe(200);
    expect(
      Buffer.from(await served.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(documents[2]?.content_list.map((item) => item.page)).toEqual([11, 12]);
    expect(documents[0]?.content_list[0]?.content).toContain('Page 1: quarterly revenue');

    // The stored PDF is the upload; the staged copy is gone.
    await state.documents.getFile(documentPdfKey('upload-12'), join(dir, 'stored.pdf'));
    await expect(
      state.documents.getFile(`ocr-uploads/upload-12/0`, join(dir, 'staged')),
    ).rejects.toThrow();

    // Summaries are written after `done`: wait for them.
    const summary = await eventually(async () => {
      const res = await fetch(
        `${stack.env.OPENSEARCH_URL}/${stack.settings.INDEX_DOCUMENT_SUMMARIZE}/_doc/upload-12`,
      );
      return res.ok ? ((await res.json()) as { _source: Record<string, unknown> }) : undefined;
    });
    expect(summary._source).toMatchObject({ pdf_name: 'upload-12.pdf' });
    // The chunk summaries follow the document summary in a second request.
    await eventually(async () => {
      const res = await fetch(
        `${stack.env.OPENSEARCH_URL}/${stack.settings.INDEX_DOCUMENT_SUMMARIZE_CHUNK}/_doc/upload-12_0`,
      );
      return res.ok ? true : undefined;
    });

    // Every stage of a task with a local file was entered once.
    const counts = await stageCounts(workers[0] as RunningServer);
    for (const stage of [
      'queued',
      'uploading',
      'ocr_polling',
      'downloading_result',
      'uploading_pdf',
      'indexing',
      'summarizing',
    ])
      expect(counts[stage]).toBeGreaterThanOrEqual(1);
  });

  it('downloads a URL input for the cloud engine and stores no PDF for it', async () => {
    const url = stack.cloud.hostFile('by-url.pdf', await textPdf(2, report));
    await queueTask(state, job('by-url', { processing: 'cloud', inputs: [{ kind: 'url', url }] }));
    const last = (await waitForEnd(state, 'by-url')).at(-1);
    expect(last).toMatchObject({ status: 'done', progress_pct: 100 });
    const { documents } = await state.chunks.read('by-url', 1, 10);
    expect(documents).toHaveLength(1);
    expect(documents[0]?.output_pdf_file).toBeUndefined();
    await expect(
      state.documents.getFile(documentPdfKey('by-url'), join(dir, 'none.pdf')),
    ).rejects.toThrow();
  });

  it('merges a PDF, a docx and an image into one document', async () => {
    const pdf = await file('first.pdf', await textPdf(1, () => 'The first part is a PDF'));
    const docx = await file(
      'second.docx',
      await officeFile('second.txt', 'The second part is a Word document', 'docx'),
    );
    const png = await file(
      'third.png',
      await pngOf(await textPdf(1, () => 'THE THIRD PART IS AN IMAGE')),
    );
    await queueTask(
      state,
      job('merged', {
        pdf_name: 'merged.pdf',
        inputs: [
          { kind: 'file', path: pdf, name: 'first.pdf' },
          { kind: 'file', path: docx, name: 'second.docx' },
          { kind: 'file', path: png, name: 'third.png' },
        ],
      }),
    );
    expect((await waitForEnd(state, 'merged')).at(-1)).toMatchObject({ status: 'done' });
    const [chunk] = (await state.chunks.read('merged', 1, 10)).documents;
    const text = chunk?.content_list.map((item) => `${item.page}:${item.content}`).join('\n');
    expect(text).toMatch(/^1:.*first part is a PDF/m);
    expect(text).toMatch(/^2:.*second part is a Word document/m);
    expect(text).toMatch(/^3:.*THIRD PART IS AN IMAGE/m);
    expect(chunk?.output_pdf_file).toContain('ocr-documents/merged.pdf');
  });
});
