/**
 * Tasks on disk, one folder each (`task.json`, `input/`, `result.json`), with the records also
 * held in memory. Writes are atomic (temporary file, then rename), so a crash never leaves a
 * half-written record; `load` brings every task back after a restart.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@pelita/kit';
import type { ContentItem } from '../mineru/content-list';
import { TaskRecordSchema, type TaskRecord } from './task-record';

export interface FileResult {
  md_content: string;
  content_list: ContentItem[];
  /** Described or listed images: the name used in `img_path`, and the PNG file in the task folder. */
  images: Array<{ name: string; file: string }>;
}
export type TaskResult = Record<string, FileResult>;

export interface TaskStore {
  load(): Promise<TaskRecord[]>;
  get(taskId: string): TaskRecord | undefined;
  all(): TaskRecord[];
  save(record: TaskRecord): Promise<void>;
  folder(taskId: string): string;
  saveResult(taskId: string, result: TaskResult): Promise<void>;
  readResult(taskId: string): Promise<TaskResult>;
  remove(taskId: string): Promise<void>;
}

export function createTaskStore(root: string, logger: Logger): TaskStore {
  const records = new Map<string, TaskRecord>();
  // Saves of one task run one after another, in call order: the last saved record wins.
  const writes = new Map<string, Promise<void>>();
  const folder = (taskId: string) => join(root, 'tasks', taskId);

  async function writeAtomically(path: string, text: string): Promise<void> {
    const temporary = `${path}.tmp`;
    await writeFile(temporary, text);
    await rename(temporary, path);
  }

  function serialised(taskId: string, write: () => Promise<void>): Promise<void> {
    const next = (writes.get(taskId) ?? Promise.resolve()).catch(() => undefined).then(write);
    writes.set(taskId, next);
    void next
      .finally(() => {
        if (writes.get(taskId) === next) writes.delete(taskId);
      })
      .catch(() => undefined);
    return next;
  }

  return {
    async load() {
      await mkdir(join(root, 'tasks'), { recursive: true });
      for (const taskId of await readdir(join(root, 'tasks'))) {
        try {
          const text = await readFile(join(folder(taskId), 'task.json'), 'utf8');
          records.set(taskId, TaskRecordSchema.parse(JSON.parse(text)));
        } catch (err) {
          // A folder without a readable record was never accepted (the crash came first).
          logger.warn({ err, taskId }, 'removing a task folder without a readable record');
          await rm(folder(taskId), { recursive: true, force: true });
        }
      }
      return [...records.values()];
    },
    get: (taskId) => records.get(taskId),
    all: () => [...records.values()],
    save(record) {
      records.set(record.task_id, record);
      return serialised(record.task_id, async () => {
        await mkdir(folder(record.task_id), { recursive: true });
        await writeAtomically(join(folder(record.task_id), 'task.json'), JSON.stringify(record));
      });
    },
    folder,
    saveResult(taskId, result) {
      return serialised(taskId, () =>
        writeAtomically(join(folder(taskId), 'result.json'), JSON.stringify(result)),
      );
    },
    async readResult(taskId) {
      return JSON.parse(await readFile(join(folder(taskId), 'result.json'), 'utf8')) as TaskResult;
    },
    remove(taskId) {
      records.delete(taskId);
      return serialised(taskId, () => rm(folder(taskId), { recursive: true, force: true }));
    },
  };
}
