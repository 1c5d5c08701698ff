/** A task as the self-hosted MinerU API reports it, plus what the engine needs to run it. */
import { z } from 'zod';

const TASK_STATES = ['pending', 'processing', 'completed', 'failed'] as const;

const TaskOptionsSchema = z.object({
  backend: z.string(),
  parse_method: z.enum(['auto', 'txt', 'ocr']),
  lang_list: z.array(z.string()),
  image_analysis: z.boolean(),
  max_images: z.number().int().min(0),
  start_page_id: z.number().int().min(0),
  end_page_id: z.number().int().min(0),
  return_md: z.boolean(),
  return_content_list: z.boolean(),
  return_images: z.boolean(),
});

export const TaskRecordSchema = z.object({
  task_id: z.string(),
  status: z.enum(TASK_STATES),
  backend: z.string(),
  /** One per uploaded file: its name without the extension (the key of its result). */
  file_names: z.array(z.string()),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  error: z.string().nullable(),
  /** Pages done of the pages to do, over every file (the worker's progress bar). */
  extract_progress: z
    .object({ extracted_pages: z.number().int(), total_pages: z.number().int() })
    .meta({ description: 'Pelita: pages done of the pages to do, over every file' }),
  options: TaskOptionsSchema,
  uploads: z.array(
    z.object({ file: z.string(), kind: z.enum(['pdf', 'image']), mime_type: z.string() }),
  ),
  /**
   * The W3C `traceparent` of the request that submitted the task, when traced: the task runs
   * later (behind others, or after a restart) in a span of that trace. Kept out of answers.
   */
  traceparent: z.string().optional(),
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

export function isFinished(record: TaskRecord): boolean {
  return record.status === 'completed' || record.status === 'failed';
}
