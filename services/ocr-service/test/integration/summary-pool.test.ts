/**
 * Summaries run in a pool of their own: with one OCR slot, the next document does not wait for
 * the previous one's summary; the task's status shows the summary's own state; a summary left
 * behind by a stopped or dying worker is taken up by the next one (nothing lost).
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
import { textPdf } from './support/documents';
import { openSharedState, type SharedState } from '../../src/shared-state';
import type { TaskRecord } from '../../src/status/task-record';
import { createWorkerService } from '../../src/worker/service';

jest.setTimeout(180_000);

const page = (n: number) => `Page ${n}: the Surabaya depot shipped rice`;

describe('ocr worker summary pool', () => {
  let stack: OcrStack;
  let state: SharedState;
  let dir: string;
  const workers: RunningServer[] = [];

  async function startWorker(overrides: Record<string, string>): Promise<RunningServer> {
    const logger = captureLogger('ocr-worker', stack.logs);
    const worker = await serveInProcess(
      createWorkerService(stack.settingsWith(overrides), logger),
      logger,
    );
    workers.push(worker);
    return worker;
  }

  async function pdfTask(taskId: string): Promise<void> {
    const path = join(dir, `${taskId}.pdf`);
    await writeFile(path, await textPdf(1, page));
    await queueTask(state, {
      task_id: taskId,
      processing: 'cloud',
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      pdf_name: `${taskId}.pdf`,
      inputs: [{ kind: 'file', path, name: `${taskId}.pdf` }],
    });
  }

  /** Resolves with the record once its summary is `status`. */
  const summaryReaches = (taskId: string, status: string, timeoutMs = 60_000) =>
    eventually(async () => {
      const record = await state.statuses.get(taskId);
      return record?.summary?.status === status ? record : undefined;
    }, timeoutMs);

  const summaryStored = async (taskId: string) =>
    (
      await fetch(
        `${stack.env.OPENSEARCH_URL}/${stack.settings.INDEX_DOCUMENT_SUMMARIZE}/_doc/${taskId}`,
      )
    ).status;

  beforeAll(async () => {
    stack = await startOcrStack();
    dir = await mkdtemp(join(stack.dir, 'inputs-'));
    state = openSharedState(stack.settings);
    await state.documents.ensureBucket();
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    stack.llm.configure({ latencyMs: 0 });
  });
  afterAll(async () => {
    await state.close();
    await stack.close();
  });

  it('finishes the next document while the previous summary still runs, and shows each summary state', async () => {
    // Every model call takes 1.5 s: a summary (chunk and final merge) takes at least 3 s.
    stack.llm.configure({ latencyMs: 1500 });
    await startWorker({ WORKER_CONCURRENCY: '1', SUMMARY_CONCURRENCY: '1' });
    await pdfTask('pool-a');
    await pdfTask('pool-b');
    // `done` is written with the summary pending; the summary slot may have started it since.
    const a = (await waitForEnd(state, 'pool-a')).at(-1) as TaskRecord;
    expect(['pending', 'running']).toContain(a.summary?.status);
    const running = await summaryReaches('pool-a', 'running');
    expect(running.summary).toMatchObject({ status: 'running', attempts: 1 });
    // The one OCR slot has taken the second document and finished it, summary still running.
    const b = (await waitForEnd(state, 'pool-b')).at(-1) as TaskRecord;
    expect(b.status).toBe('done');
    expect((await state.statuses.get('pool-a'))?.summary?.status).toBe('running');

    const doneA = await summaryReaches('pool-a', 'done');
    expect(doneA.summary).toMatchObject({ status: 'done', attempts: 1 });
    expect(doneA.summary?.error).toBeUndefined();
    expect(Date.parse(`${doneA.summary?.finished_at}Z`)).toBeGreaterThan(
      Date.parse(`${b.finished_at}Z`),
    );
    expect(doneA.status).toBe('done');
    await summaryReaches('pool-b', 'done');
    expect(await summaryStored('pool-a')).toBe(200);
    expect(await summaryStored('pool-b')).toBe(200);
  });

  it('leaves a summary queued when no worker runs summaries, and the next worker makes it', async () => {
    await startWorker({ SUMMARY_CONCURRENCY: '0', WORKER_NAME: 'ocr-only' });
    await pdfTask('pool-later');
    expect((await waitForEnd(state, 'pool-later')).at(-1)?.summary).toEqual({
      status: 'pending',
      attempts: 0,
    });
    await workers.pop()?.stop();
    expect(await summaryStored('pool-later')).toBe(404);
    await startWorker({ SUMMARY_CONCURRENCY: '1', WORKER_NAME: 'summaries' });
    expect((await summaryReaches('pool-later', 'done')).summary?.attempts).toBe(1);
    expect(await summaryStored('pool-later')).toBe(200);
  });

  it('writes no summary for a document deleted while its summary waited', async () => {
    await startWorker({ SUMMARY_CONCURRENCY: '0', WORKER_NAME: 'ocr-only-2' });
    await pdfTask('pool-deleted');
    expect((await waitForEnd(state, 'pool-deleted')).at(-1)?.status).toBe('done');
    await workers.pop()?.stop();
    // What a deletion does to the chunks (the core backend removes them by id).
    const removed = await fetch(
      `${stack.env.OPENSEARCH_URL}/${stack.settings.INDEX_PDF_PARSING_RESULTS}/_doc/pool-deleted_chunk_1?refresh=true`,
      { method: 'DELETE' },
    );
    expect(removed.status).toBe(200);
    await startWorker({ WORKER_NAME: 'summaries-2' });
    await eventually(async () =>
      (await state.summaryQueue.depth()).length === 0 ? true : undefined,
    );
    expect(await summaryStored('pool-deleted')).toBe(404);
    expect((await state.statuses.get('pool-deleted'))?.summary?.status).toBe('pending');
  });

  it('takes over a summary whose worker stopped in the middle of it (a second attempt)', async () => {
    stack.llm.configure({ latencyMs: 5000 });
    const first = await startWorker({ WORKER_NAME: 'stopping', SHUTDOWN_TIMEOUT_MS: '200' });
    await pdfTask('pool-taken-over');
    await summaryReaches('pool-taken-over', 'running');
    // Stopped mid-summary: the summary is abandoned unacknowledged, not failed.
    workers.splice(workers.indexOf(first), 1);
    await first.stop();
    expect((await state.statuses.get('pool-taken-over'))?.summary?.status).toBe('running');
    stack.llm.configure({ latencyMs: 0 });
    // Claimed once idle for CLAIM_IDLE_MS (1.5 s in the stack) by another worker.
    await startWorker({ WORKER_NAME: 'rescuer' });
    const done = await summaryReaches('pool-taken-over', 'done');
    expect(done.summary?.attempts).toBe(2);
    expect(await summaryStored('pool-taken-over')).toBe(200);
    await eventually(async () =>
      (await state.summaryQueue.depth()).length === 0 ? true : undefined,
    );
  });

  it('marks the summary failed with the reason when the summarizer is down, the task staying done', async () => {
    await startWorker({ URL_SUMMARIZER: 'http://127.0.0.1:1' });
    await pdfTask('pool-down');
    expect((await waitForEnd(state, 'pool-down')).at(-1)?.status).toBe('done');
    const failed = await summaryReaches('pool-down', 'failed');
    expect(failed.status).toBe('done');
    expect(failed.summary).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.summary?.error).toMatch(/ECONNREFUSED|connect/);
  });
});
