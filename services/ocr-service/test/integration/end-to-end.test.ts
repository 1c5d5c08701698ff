/**
 * The whole chain as a client sees it: a Word document posted to the task API, taken by a
 * worker, converted by LibreOffice, read by the local engine, indexed and summarised; the status
 * followed over HTTP — also from a task API started after the one that took the upload.
 */
import { serveInProcess, type RunningServer } from '@pelita/kit';
import { captureLogger, eventually, startOcrStack, type OcrStack } from './support/ocr-stack';
import { officeFile } from './support/documents';
import { createOcrApiService } from '../../src/api/service';
import type { TaskRecord } from '../../src/status/task-record';
import { createWorkerService } from '../../src/worker/service';

jest.setTimeout(180_000);

describe('document pipeline end to end', () => {
  let stack: OcrStack;
  const running: RunningServer[] = [];

  async function start(kind: 'api' | 'worker'): Promise<RunningServer> {
    const logger = captureLogger(kind, stack.logs);
    const service =
      kind === 'api'
        ? createOcrApiService(stack.settings, logger)
        : createWorkerService(stack.settings, logger);
    const server = await serveInProcess(service, logger);
    running.push(server);
    return server;
  }

  beforeAll(async () => {
    stack = await startOcrStack();
  });
  afterAll(async () => {
    for (const server of running) await server.stop();
    await stack.close();
  });

  it('turns an uploaded docx into chunks and summaries, followed over HTTP across an API restart', async () => {
    const first = await start('api');
    const form = new FormData();
    const docx = await officeFile(
      'minutes.txt',
      'Minutes of the Surabaya board meeting: the new warehouse opens in March.',
      'docx',
    );
    form.append('file', new Blob([docx]), 'minutes.docx');
    form.append('metadata_document', JSON.stringify({ department: 'operations' }));
    const posted = await fetch(`${first.url}/api/v1/pdfs?processing=local&task_id=minutes-1`, {
      method: 'POST',
      body: form,
    });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual({
      task_id: 'minutes-1',
      status: 'pending',
      processing_type: 'local',
    });

    // The API that took the upload goes away; a new one answers for the task.
    await first.stop();
    const api = await start('api');
    await start('worker');
    const status = async () =>
      (await (await fetch(`${api.url}/api/v1/tasks/minutes-1/status`)).json()) as TaskRecord;
    const done = await eventually(async () => {
      const record = await status();
      if (record.status === 'failed') throw new Error(`task failed: ${record.error}`);
      return record.status === 'done' ? record : undefined;
    }, 120_000);
    expect(done).toMatchObject({ stage: 'done', progress_pct: 100 });

    const chunks = (await (await fetch(`${api.url}/api/v1/pdfs/minutes-1`)).json()) as {
      total_documents: number;
      documents: Array<{
        id: string;
        pdf_name: string;
        output_pdf_file?: string;
        metadata_document?: unknown;
        content_list: Array<{ content: string }>;
      }>;
    };
    expect(chunks.total_documents).toBe(1);
    const [chunk] = chunks.documents;
    expect(chunk).toMatchObject({
      id: 'minutes-1_chunk_1',
      pdf_name: 'minutes.docx',
      metadata_document: { department: 'operations' },
    });
    expect(chunk?.content_list.map((item) => item.content).join(' ')).toContain(
      'Surabaya board meeting',
    );
    // The PDF was stored: a presigned link, signed afresh by the API, that MinIO serves.
    expect(chunk?.output_pdf_file).toMatch(/\/ocr-documents\/minutes-1\.pdf\?X-Amz-/);
    const pdf = await fetch(chunk?.output_pdf_file ?? '');
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const summary = await eventually(async () => {
      const res = await fetch(
        `${stack.env.OPENSEARCH_URL}/${stack.settings.INDEX_DOCUMENT_SUMMARIZE}/_doc/minutes-1`,
      );
      return res.ok ? ((await res.json()) as { _source: { summary: string } }) : undefined;
    });
    expect(summary._source.summary.length).toBeGreaterThan(0);
  });
});
