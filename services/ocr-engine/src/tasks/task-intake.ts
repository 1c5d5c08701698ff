/**
 * Takes a submitted task in: every upload's type is checked from its bytes (an unsupported or
 * empty file refuses the whole task, 400), the uploads move into the task's folder, and the
 * task is queued with the submitting request's trace context. A full queue leaves no record
 * behind and is reported as `QueueFullError`.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { currentTraceparent, HttpError, type UploadedFile } from '@pelita/kit';
import { detectFileKind } from '../extract/file-type';
import type { TaskRecord } from './task-record';
import { QueueFullError, type TaskRunner } from './task-runner';
import type { TaskStore } from './task-store';

export interface TaskSubmission {
  files: UploadedFile[];
  backend: string;
  options: TaskRecord['options'];
}

export interface TaskIntakeDeps {
  store: TaskStore;
  runner: TaskRunner;
}

/** The queued task's record; throws `QueueFullError` when the queue is full. */
export async function submitTask(
  submission: TaskSubmission,
  { store, runner }: TaskIntakeDeps,
): Promise<TaskRecord> {
  const record = await acceptUploads(randomUUID(), submission, store);
  try {
    await runner.submit(record);
  } catch (err) {
    if (err instanceof QueueFullError) await store.remove(record.task_id);
    throw err;
  }
  return record;
}

/** Checks each upload's type from its bytes and moves it into the task's folder. */
async function acceptUploads(
  taskId: string,
  { files, backend, options }: TaskSubmission,
  store: TaskStore,
): Promise<TaskRecord> {
  const inputDir = join(store.folder(taskId), 'input');
  const uploads: TaskRecord['uploads'] = [];
  const stems: string[] = [];
  for (const [index, file] of files.entries()) {
    const detected = file.size === 0 ? undefined : await detectFileKind(file.path);
    if (!detected) {
      throw new HttpError(
        400,
        'unsupported_file_type',
        `Unsupported file type: ${file.originalName}`,
      );
    }
    stems.push(uniqueStem(file.originalName, stems));
    uploads.push({
      file: join('input', String(index)),
      kind: detected.kind,
      mime_type: detected.mimeType,
    });
  }
  await mkdir(inputDir, { recursive: true });
  for (const [index, file] of files.entries()) {
    await rename(file.path, join(inputDir, String(index)));
  }
  return {
    task_id: taskId,
    status: 'pending',
    backend,
    file_names: stems,
    created_at: new Date().toISOString(),
    started_at: null,
    completed_at: null,
    error: null,
    extract_progress: { extracted_pages: 0, total_pages: 0 },
    options,
    uploads,
    ...traceOfRequest(),
  };
}

/** The submitting request's trace context, carried by the task to the runner (when traced). */
function traceOfRequest(): { traceparent?: string } {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}

/** The result key of a file: its name without directories and extension, unique in the task. */
function uniqueStem(originalName: string, taken: string[]): string {
  const name = basename(originalName.replace(/\\/g, '/'));
  const stem = name.slice(0, name.length - extname(name).length) || 'file';
  let candidate = stem;
  for (let n = 2; taken.includes(candidate); n += 1) candidate = `${stem}_${n}`;
  return candidate;
}
