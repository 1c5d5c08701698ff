/** The engine built as `main.ts` builds it, on a free loopback port, with its own task folder. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { waitFor } from '@pelita/testenv';
import { requireEnv } from '@pelita/testenv';
import { createOcrEngineService, settingsSchema } from '../../../src';

// poppler and tesseract come from `make testenv` (document-tools); missing, this fails by name.
requireEnv('TESSERACT_BIN');

/** The fields of a task's status the tests read. */
export interface TaskStatusBody {
  task_id: string;
  status: string;
  error: string | null;
  started_at: string | null;
  completed_at: string | null;
  extract_progress: { extracted_pages: number; total_pages: number };
  [field: string]: unknown;
}

export interface EngineUnderTest {
  url: string;
  taskDir: string;
  /** POSTs a multipart form to `/tasks` with `files` and the given fields. */
  submit(
    files: Array<{ name: string; bytes: Buffer }>,
    fields?: Record<string, string>,
  ): Promise<Response>;
  /** Polls the task until it is completed or failed; resolves with its last status. */
  finished(taskId: string, timeoutMs?: number): Promise<TaskStatusBody>;
  stop(): Promise<void>;
}

export async function startEngine(env: Record<string, string> = {}): Promise<EngineUnderTest> {
  const taskDir = env.TASK_DIR ?? (await mkdtemp(join(tmpdir(), 'ocr-engine-test-')));
  const settings = loadConfig(settingsSchema, { ...env, TASK_DIR: taskDir });
  const logger = createLogger({
    name: 'ocr-engine',
    level: 'warn',
    destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const service = createOcrEngineService(settings, logger);
  const running: RunningServer = await serveInProcess(service, logger);
  return {
    url: running.url,
    taskDir,
    submit(files, fields = {}) {
      const form = new FormData();
      for (const file of files) form.append('files', new Blob([file.bytes]), file.name);
      for (const [key, value] of Object.entries(fields)) form.append(key, value);
      return fetch(`${running.url}/tasks`, { method: 'POST', body: form });
    },
    finished(taskId, timeoutMs = 60_000) {
      return waitFor(
        async () => {
          const res = await fetch(`${running.url}/tasks/${taskId}`);
          const body = (await res.json()) as TaskStatusBody;
          return (body.status === 'completed' || body.status === 'failed') && body;
        },
        { what: `task ${taskId} to finish`, timeoutMs, intervalMs: 100 },
      );
    },
    async stop() {
      await running.stop();
      if (!env.TASK_DIR) await rm(taskDir, { recursive: true, force: true });
    },
  };
}
