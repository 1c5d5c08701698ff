/**
 * What a worker needs to run a task, written by the API into the queue message: the request's
 * options and where its input is. Files are staged in object storage by the API (any worker in
 * any pod can read them); URLs are downloaded by the worker, under the SSRF rules.
 */
import { z } from 'zod';

export const TYPE_OCR = ['ekstrak_only', 'representasi'] as const;
export const PROCESSING = ['cloud', 'local'] as const;

export const TaskInputSchema = z.discriminatedUnion('kind', [
  /** A file the API staged under `key`; `name` is the uploaded name (its extension tells the type). */
  z.object({ kind: z.literal('upload'), key: z.string(), name: z.string() }),
  z.object({ kind: z.literal('url'), url: z.string() }),
]);
export type TaskInput = z.infer<typeof TaskInputSchema>;

export const TaskJobSchema = z.object({
  task_id: z.string(),
  processing: z.enum(PROCESSING),
  type_ocr: z.enum(TYPE_OCR),
  representasi_count: z.number().int().min(0),
  /** One input, or several merged into one PDF (`POST /api/v1/pdfs/merge`). */
  inputs: z.array(TaskInputSchema).min(1),
  /** The name stored as `pdf_name` (the upload's name, the URL's file name, or the merge's). */
  pdf_name: z.string(),
  metadata_document: z.record(z.string(), z.unknown()).optional(),
  /** When the API queued it (ISO 8601), for the queue wait. */
  queued_at: z.string(),
});
export type TaskJob = z.infer<typeof TaskJobSchema>;

/**
 * The seed stores the PDF (and gives `output_pdf_file`) for tasks with a local file: an upload
 * or a merge. A task of one URL has none.
 */
export function hasLocalFile(job: TaskJob): boolean {
  return job.inputs.length > 1 || job.inputs[0]?.kind === 'upload';
}
