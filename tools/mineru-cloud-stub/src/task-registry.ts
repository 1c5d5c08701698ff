/** Everything the double remembers, in memory: tasks, batches, upload keys, hosted files, stats. */
import type { FaultKind } from './faults';
import type { FileTask, SubmittedOptions, TaskState } from './file-task';

export interface FileRecord {
  taskId: string;
  batchId: string | undefined;
  fileName: string;
  dataId: string | undefined;
  state: TaskState;
  errCode: number | undefined;
  totalPages: number | undefined;
  extractedPages: number;
  uploadedBytes: number | undefined;
  faults: FaultKind[];
  options: SubmittedOptions;
}

export interface Counters {
  batchesCreated: number;
  urlTasksCreated: number;
  uploads: number;
  uploadsRejected: number;
  polls: number;
  pollErrors: number;
  downloads: number;
  authFailures: number;
}

export interface StubStats extends Counters {
  files: FileRecord[];
}

export class TaskRegistry {
  readonly counters: Counters = freshCounters();
  private readonly tasks = new Map<string, FileTask>();
  private readonly batches = new Map<string, FileTask[]>();
  private readonly uploads = new Map<string, FileTask>();
  private readonly hosted = new Map<string, Buffer>();
  /** The tasks created since the statistics were last cleared. */
  private recorded: FileTask[] = [];

  add(task: FileTask): void {
    this.tasks.set(task.taskId, task);
    this.recorded.push(task);
    if (task.uploadKey) this.uploads.set(task.uploadKey, task);
  }

  addBatch(batchId: string, members: FileTask[]): void {
    this.batches.set(batchId, members);
    this.counters.batchesCreated += 1;
  }

  batch(batchId: string): readonly FileTask[] | undefined {
    return this.batches.get(batchId);
  }

  task(taskId: string): FileTask | undefined {
    return this.tasks.get(taskId);
  }

  byUploadKey(key: string): FileTask | undefined {
    return this.uploads.get(key);
  }

  byZipId(zipId: string): FileTask | undefined {
    for (const task of this.tasks.values()) if (task.zipId === zipId) return task;
    return undefined;
  }

  host(name: string, bytes: Buffer): void {
    this.hosted.set(name, bytes);
  }

  hostedFile(name: string): Buffer | undefined {
    return this.hosted.get(name);
  }

  stats(): StubStats {
    return {
      ...this.counters,
      files: this.recorded.map((task) => ({
        taskId: task.taskId,
        batchId: task.batchId,
        fileName: task.fileName,
        dataId: task.dataId,
        state: task.state,
        errCode: task.errCode,
        totalPages: task.totalPages,
        extractedPages: task.extractedPages,
        uploadedBytes: task.uploadedBytes,
        faults: [...task.faults],
        options: structuredClone(task.options),
      })),
    };
  }

  /** Clears counters and the file list; tasks in flight go on and still answer polls. */
  resetStats(): void {
    Object.assign(this.counters, freshCounters());
    this.recorded = [];
  }
}

function freshCounters(): Counters {
  return {
    batchesCreated: 0,
    urlTasksCreated: 0,
    uploads: 0,
    uploadsRejected: 0,
    polls: 0,
    pollErrors: 0,
    downloads: 0,
    authFailures: 0,
  };
}
