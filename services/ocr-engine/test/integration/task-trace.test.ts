/**
 * A task carries the trace of the request that submitted it (`traceparent` in its saved record),
 * so it runs in that trace however late it runs — after a restart too — and the answers about
 * it never show it. (That the span really joins the trace, across processes: the trace test in
 * charts/test/integration/document-trace.test.ts.)
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskRecord } from '../../src/tasks/task-record';
import { textPdf } from './support/documents';
import { startEngine, type EngineUnderTest } from './support/engine-under-test';

jest.setTimeout(120_000);

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('ocr-engine task trace context', () => {
  let taskDir: string;
  let engine: EngineUnderTest | undefined;
  beforeEach(async () => {
    taskDir = await mkdtemp(join(tmpdir(), 'ocr-engine-trace-'));
  });
  afterEach(async () => {
    await engine?.stop();
    engine = undefined;
    await rm(taskDir, { recursive: true, force: true });
  });

  it('keeps a saved task’s traceparent through its run after a restart, out of every answer', async () => {
    // A task accepted by an earlier run of the engine, which stopped before running it.
    const taskId = 'traced-task';
    const folder = join(taskDir, 'tasks', taskId);
    await mkdir(join(folder, 'input'), { recursive: true });
    await writeFile(join(folder, 'input', '0'), await textPdf(1));
    const record: TaskRecord = {
      task_id: taskId,
      status: 'pending',
      backend: 'pipeline',
      file_names: ['doc'],
      created_at: new Date().toISOString(),
      started_at: null,
      completed_at: null,
      error: null,
      extract_progress: { extracted_pages: 0, total_pages: 0 },
      options: {
        backend: 'pipeline',
        parse_method: 'auto',
        lang_list: ['en'],
        image_analysis: false,
        max_images: 0,
        start_page_id: 0,
        end_page_id: 99999,
        return_md: true,
        return_content_list: true,
        return_images: false,
      },
      uploads: [{ file: join('input', '0'), kind: 'pdf', mime_type: 'application/pdf' }],
      traceparent: TRACEPARENT,
    };
    await writeFile(join(folder, 'task.json'), JSON.stringify(record));

    engine = await startEngine({ TASK_DIR: taskDir });
    const finished = await engine.finished(taskId);
    expect(finished.status).toBe('completed');
    expect(finished).not.toHaveProperty('traceparent');
    const result = await fetch(`${engine.url}/tasks/${taskId}/result`);
    expect(result.status).toBe(200);
    expect(await result.text()).not.toContain(TRACEPARENT);
    // Every save of the record while it ran kept it.
    const saved = JSON.parse(await readFile(join(folder, 'task.json'), 'utf8')) as TaskRecord;
    expect(saved).toMatchObject({ status: 'completed', traceparent: TRACEPARENT });
  });

  it('saves no traceparent for a task submitted untraced', async () => {
    engine = await startEngine({ TASK_DIR: taskDir });
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(await textPdf(1))]), 'plain.pdf');
    const submitted = (await (
      await fetch(`${engine.url}/tasks`, { method: 'POST', body: form })
    ).json()) as { task_id: string };
    expect(submitted).not.toHaveProperty('traceparent');
    await engine.finished(submitted.task_id);
    const saved = JSON.parse(
      await readFile(join(taskDir, 'tasks', submitted.task_id, 'task.json'), 'utf8'),
    ) as TaskRecord;
    expect(saved).not.toHaveProperty('traceparent');
  });
});
