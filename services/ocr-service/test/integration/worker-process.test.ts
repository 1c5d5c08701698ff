/**
 * The worker as the StatefulSet runs it (`node dist/worker.js`): killed with SIGKILL in the
 * middle of a task, the task is taken over by another worker and completes once, with no
 * duplicate chunks; SIGTERM while idle stops it cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
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
import { createWorkerService } from '../../src/worker/service';

jest.setTimeout(120_000);

const WORKER = join(__dirname, '../../dist/worker.js');

describe('ocr worker process', () => {
  let stack: OcrStack;
  let state: SharedState;
  let dir: string;
  let rescuer: RunningServer | undefined;
  const children: ChildProcess[] = [];

  /** The worker process and what it has written so far. */
  function startProcess(name: string): { child: ChildProcess; output: () => string } {
    const child = spawn(process.execPath, [WORKER], {
      env: { ...stack.env, PORT: '0', WORKER_NAME: name, PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    children.push(child);
    return { child, output: () => output };
  }

  beforeAll(async () => {
    stack = await startOcrStack();
    dir = await mkdtemp(join(stack.dir, 'inputs-'));
    state = openSharedState(stack.settings);
    await state.documents.ensureBucket();
    await state.queue.ensure();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await rescuer?.stop();
    await state.close();
    await stack.close();
  });

  it('finishes a task once after its worker is killed mid-task (no duplicate chunks)', async () => {
    // 11 pages at 300 ms each: the task is surely in ocr_polling when the worker dies.
    stack.cloud.setFaults([{ match: 'killed', fault: { kind: 'slow', pageMs: 300 } }]);
    const path = join(dir, 'killed.pdf');
    await writeFile(path, await textPdf(11, (page) => `Page ${page} survives the crash`));
    const { child: doomed } = startProcess('doomed');
    await queueTask(state, {
      task_id: 'killed',
      processing: 'cloud',
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      pdf_name: 'killed.pdf',
      inputs: [{ kind: 'file', path, name: 'killed.pdf' }],
    });
    await eventually(async () => {
      const record = await state.statuses.get('killed');
      return record?.stage === 'ocr_polling' ? record : undefined;
    });
    doomed.kill('SIGKILL');
    await once(doomed, 'exit');
    stack.cloud.setFaults([]);

    const logger = captureLogger('ocr-worker', stack.logs);
    rescuer = await serveInProcess(
      createWorkerService(stack.settingsWith({ WORKER_NAME: 'rescuer' }), logger),
      logger,
    );
    const last = (await waitForEnd(state, 'killed')).at(-1);
    expect(last).toMatchObject({ status: 'done', progress_pct: 100 });
    expect(last?.stage_detail).toBe('3 chunks indexed');

    const { documents, total_documents } = await state.chunks.read('killed', 1, 10);
    expect(total_documents).toBe(3);
    expect(documents.map((chunk) => chunk.id)).toEqual([
      'killed_chunk_1',
      'killed_chunk_2',
      'killed_chunk_3',
    ]);
    const finished = await (await fetch(`${rescuer.url}/metrics`)).text();
    expect(finished).toMatch(/^ocr_tasks_finished_total\{status="done",processing="cloud"\} 1$/m);
    // Acknowledged once its summary is handed off.
    await eventually(async () => ((await state.queue.depth()).length === 0 ? true : undefined));
  });

  it('stops cleanly on SIGTERM while idle', async () => {
    const { child, output } = startProcess('graceful');
    await eventually(() => (output().includes('"msg":"started"') ? true : undefined));
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(output()).toContain('"msg":"stopped"');
  });
});
