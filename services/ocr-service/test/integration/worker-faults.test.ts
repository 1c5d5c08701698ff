/**
 * Every task ends, and says why when it fails: an engine that never finishes, object storage
 * down, an input nobody can read, a summarizer down (the task stays done), a task whose workers
 * keep dying. One worker per case, each with the settings of its fault.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveInProcess, type RunningServer } from '@pelita/kit';
import {
  captureLogger,
  queueTask,
  startOcrStack,
  waitForEnd,
  type OcrStack,
} from './support/ocr-stack';
import { textPdf } from './support/documents';
import {
  connectRedis,
  openSharedState,
  queueOptions,
  type SharedState,
} from '../../src/shared-state';
import { createTaskQueue } from '../../src/queue/task-queue';
import { createWorkerService } from '../../src/worker/service';

jest.setTimeout(120_000);

const report = (page: number) => `Page ${page}: the Bandung warehouse was inspected`;

describe('ocr worker faults', () => {
  let stack: OcrStack;
  let state: SharedState;
  let dir: string;
  let worker: RunningServer | undefined;

  /** One worker at a time: each case runs on a worker with its fault's settings. */
  async function useWorker(overrides: Record<string, string>) {
    await worker?.stop();
    const logger = captureLogger('ocr-worker', stack.logs);
    worker = await serveInProcess(
      createWorkerService(stack.settingsWith(overrides), logger),
      logger,
    );
  }

  const pdfTask = async (taskId: string, processing: 'cloud' | 'local' = 'cloud') => {
    const path = join(dir, `${taskId}.pdf`);
    await writeFile(path, await textPdf(2, report));
    await queueTask(state, {
      task_id: taskId,
      processing,
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      pdf_name: `${taskId}.pdf`,
      inputs: [{ kind: 'file', path, name: `${taskId}.pdf` }],
    });
  };

  beforeAll(async () => {
    stack = await startOcrStack();
    dir = await mkdtemp(join(stack.dir, 'inputs-'));
    state = openSharedState(stack.settings);
    await state.documents.ensureBucket();
    await state.queue.ensure();
  });
  afterEach(() => stack.cloud.setFaults([]));
  afterAll(async () => {
    await worker?.stop();
    await state.close();
    await stack.close();
  });

  it('fails a task whose engine never finishes: Task timeout, 504, staged upload removed', async () => {
    await useWorker({ MAX_WAIT_OCR: '5' });
    stack.cloud.setFaults([{ match: 'stuck', fault: { kind: 'never-finish' } }]);
    await pdfTask('stuck');
    const last = (await waitForEnd(state, 'stuck')).at(-1);
    expect(last).toMatchObject({
      status: 'failed',
      stage: 'ocr_polling',
      error: 'Task timeout',
      error_code: 504,
    });
    expect(last?.finished_at).toBeDefined();
    await expect(
      state.documents.getFile('ocr-uploads/stuck/0', join(dir, 'staged')),
    ).rejects.toThrow();
  });

  it('fails with the engine reason when the cloud engine fails the file', async () => {
    await useWorker({});
    stack.cloud.setFaults([
      { match: 'refused', fault: { kind: 'fail', code: -60010, message: 'parse failed' } },
    ]);
    await pdfTask('refused');
    const last = (await waitForEnd(state, 'refused')).at(-1);
    expect(last).toMatchObject({ status: 'failed', error: 'parse failed', error_code: -60010 });
  });

  // Real zip bombs from the cloud double: a 1 MB archive whose content list inflates to 1 GiB,
  // and one of 65,535 entries. The limits are the settings' defaults (64 MiB, 10,000 entries).
  it('fails a task whose result archive is a zip bomb, with a clear 502, inflating none of it', async () => {
    await useWorker({});
    stack.cloud.setFaults([
      { match: 'deep-bomb', fault: { kind: 'zip-bomb', shape: 'deep' } },
      { match: 'wide-bomb', fault: { kind: 'zip-bomb', shape: 'wide' } },
    ]);
    await pdfTask('deep-bomb');
    expect((await waitForEnd(state, 'deep-bomb')).at(-1)).toMatchObject({
      status: 'failed',
      error: `the result archive is too large: its files inflate to more than ${64 * 1024 * 1024} bytes`,
      error_code: 502,
    });
    await pdfTask('wide-bomb');
    expect((await waitForEnd(state, 'wide-bomb')).at(-1)).toMatchObject({
      status: 'failed',
      error: 'the result archive is too large: 65535 entries, more than 10000',
      error_code: 502,
    });
  });

  it('fails with a clear 503 when object storage is down', async () => {
    await useWorker({ S3_ENDPOINT: 'http://127.0.0.1:1' });
    await pdfTask('no-storage');
    const last = (await waitForEnd(state, 'no-storage')).at(-1);
    expect(last).toMatchObject({ status: 'failed', error_code: 503 });
    expect(last?.error).toMatch(/^the uploaded file could not be read from object storage/);
  });

  it('fails a URL that serves something not a document (415) and one on a private address (403)', async () => {
    await useWorker({});
    const text = stack.cloud.hostFile('notes.txt', Buffer.from('just some notes'));
    await queueTask(state, {
      task_id: 'not-a-document',
      processing: 'local',
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      pdf_name: 'notes.txt',
      inputs: [{ kind: 'url', url: text }],
    });
    expect((await waitForEnd(state, 'not-a-document')).at(-1)).toMatchObject({
      status: 'failed',
      error_code: 415,
    });

    await useWorker({ ALLOWED_TARGETS: '' });
    const pdf = stack.cloud.hostFile('private.pdf', await textPdf(1, report));
    await queueTask(state, {
      task_id: 'private-address',
      processing: 'local',
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      pdf_name: 'private.pdf',
      inputs: [{ kind: 'url', url: pdf.replace('http://', 'http://user:secret@') }],
    });
    const last = (await waitForEnd(state, 'private-address')).at(-1);
    expect(last).toMatchObject({ status: 'failed', error_code: 403 });
    expect(last?.error).not.toContain('secret');
  });

  it('leaves the task done when the summarizer is down, and logs why', async () => {
    await useWorker({ URL_SUMMARIZER: 'http://127.0.0.1:1' });
    await pdfTask('no-summary', 'local');
    expect((await waitForEnd(state, 'no-summary')).at(-1)).toMatchObject({ status: 'done' });
    const logged = () =>
      stack.logs.find((line) => line.includes('no-summary') && line.includes('summarising'));
    for (let i = 0; i < 100 && !logged(); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(logged()).toContain('the task stays done');
    const res = await fetch(
      `${stack.env.OPENSEARCH_URL}/${stack.settings.INDEX_DOCUMENT_SUMMARIZE}/_doc/no-summary`,
    );
    expect(res.status).toBe(404);
  });

  it('fails a task delivered more often than MAX_DELIVERIES (its workers kept dying)', async () => {
    await worker?.stop();
    worker = undefined;
    await pdfTask('cursed');
    // A worker that takes the task and dies: the message stays pending under its name.
    const ghost = connectRedis(stack.settings);
    await createTaskQueue(ghost, queueOptions(stack.settings)).next('ghost-0', 100);
    ghost.disconnect();
    await useWorker({ MAX_DELIVERIES: '1' });
    const last = (await waitForEnd(state, 'cursed')).at(-1);
    expect(last).toMatchObject({ status: 'failed', error_code: 500 });
    expect(last?.error).toMatch(/delivered 2 times/);
    // The worker acknowledges the message after it has written the status.
    let depth = (await state.queue.depth()).length;
    for (let i = 0; i < 50 && depth > 0; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      depth = (await state.queue.depth()).length;
    }
    expect(depth).toBe(0);
  });
});
