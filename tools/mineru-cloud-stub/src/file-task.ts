/** One file the double processes: how it was submitted, where it stands, what it produced. */
import type { FaultKind } from './faults';

export type TaskState = 'waiting-file' | 'pending' | 'running' | 'converting' | 'done' | 'failed';

/** The extraction options the client sent, kept so tests can check what was forwarded. */
export interface SubmittedOptions {
  model_version?: string;
  language?: string;
  is_ocr?: boolean;
  enable_formula?: boolean;
  enable_table?: boolean;
  extra_formats?: string[];
  page_ranges?: string;
}

export interface FileTask {
  taskId: string;
  batchId: string | undefined;
  fileName: string;
  dataId: string | undefined;
  /** The last path segment of the upload URL (`waiting-file` tasks only). */
  uploadKey: string | undefined;
  options: SubmittedOptions;
  state: TaskState;
  errCode: number | undefined;
  errMsg: string;
  totalPages: number | undefined;
  extractedPages: number;
  /** `YYYY-MM-DD HH:mm:ss` (UTC), as MinerU writes it. */
  startTime: string | undefined;
  uploadedBytes: number | undefined;
  faults: FaultKind[];
  /** The archive's id: `full_zip_url` is `<origin>/cdn/pdf/<zipId>.zip`. */
  zipId: string | undefined;
  zip: Buffer | undefined;
}

export function newTask(
  fields: Pick<FileTask, 'taskId' | 'batchId' | 'fileName' | 'dataId' | 'uploadKey' | 'options'> & {
    state: TaskState;
  },
): FileTask {
  return {
    ...fields,
    errCode: undefined,
    errMsg: '',
    totalPages: undefined,
    extractedPages: 0,
    startTime: undefined,
    uploadedBytes: undefined,
    faults: [],
    zipId: undefined,
    zip: undefined,
  };
}

export function mineruTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** The task as the poll endpoints describe it (fields shared by batch items and single tasks). */
export function describeTask(task: FileTask, origin: string): Record<string, unknown> {
  return {
    ...(task.dataId !== undefined ? { data_id: task.dataId } : {}),
    state: task.state,
    err_msg: task.errMsg,
    ...(task.state === 'failed' && task.errCode !== undefined ? { err_code: task.errCode } : {}),
    ...(task.state === 'done' && task.zipId ? { full_zip_url: zipUrl(origin, task.zipId) } : {}),
    ...(task.state === 'running'
      ? {
          extract_progress: {
            extracted_pages: task.extractedPages,
            total_pages: task.totalPages ?? 0,
            start_time: task.startTime ?? '',
          },
        }
      : {}),
  };
}

function zipUrl(origin: string, zipId: string): string {
  return `${origin}/cdn/pdf/${zipId}.zip`;
}
