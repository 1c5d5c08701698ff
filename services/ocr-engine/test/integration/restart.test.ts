/**
 * The engine as a real process (`make build` first): a task survives a SIGKILL in the middle of
 * its run (the restarted engine runs it again from its saved record), and SIGTERM hands a
 * running task back as pending instead of failing it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@pelita/testenv';
import { scannedPdf } from './support/documents';

jest.setTimeout(180_000);

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

async function startProcess(taskDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: '0', TASK_DIR: taskDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'listening') return { child, url: `http://127.0.0.1:${entry.port}` };
  }
  throw new Error('the engine exited before listening');
}

async function statusOf(url: string, taskId: string): Promise<any> {
  return (await fetch(`${url}/tasks/${taskId}`)).json();
}

describe('ocr-engine restarts', () => {
  let taskDir: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    taskDir = await mkdtemp(join(tmpdir(), 'ocr-engine-restart-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await rm(taskDir, { recursive: true, force: true });
  });

  const submit = async (url: string) => {
    const form = new FormData();
    form.append('files', new Blob([await scannedPdf(3)]), 'scan.pdf');
    return ((await (await fetch(`${url}/tasks`, { method: 'POST', body: form })).json()) as any)
      .task_id as string;
  };

  it('finishes a task after the engine is killed in the middle of it', async () => {
    const first = await startProcess(taskDir);
    children.push(first.child);
    const taskId = await submit(first.url);
    await waitFor(
      async () => (await statusOf(first.url, taskId)).extract_progress.extracted_pages >= 1,
      { what: 'the first page extracted', timeoutMs: 120_000 },
    );
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');

    const second = await startProcess(taskDir);
    children.push(second.child);
    await waitFor(async () => (await statusOf(second.url, taskId)).status === 'completed', {
      what: 'the task completed',
      timeoutMs: 120_000,
    });
    const result = (await (await fetch(`${second.url}/tasks/${taskId}/result`)).json()) as any;
    expect(result.results.scan.md_content).toContain('quarterly report');
    expect((await statusOf(second.url, taskId)).extract_progress).toEqual({
      extracted_pages: 3,
      total_pages: 3,
    });
  });

  it('hands a running task back as pending on SIGTERM, and runs it on the next start', async () => {
    const first = await startProcess(taskDir);
    children.push(first.child);
    const taskId = await submit(first.url);
    await waitFor(async () => (await statusOf(first.url, taskId)).status === 'processing', {
      what: 'the task processing',
      timeoutMs: 120_000,
    });
    first.child.kill('SIGTERM');
    const [code] = await once(first.child, 'exit');
    expect(code).toBe(0);

    const second = await startProcess(taskDir);
    children.push(second.child);
    const resumed = await statusOf(second.url, taskId);
    expect(resumed.status).not.toBe('failed');
    await waitFor(async () => (await statusOf(second.url, taskId)).status === 'completed', {
      what: 'the task completed',
      timeoutMs: 120_000,
    });
  });
});
