/** The seed's task status record, plus the timings Pelita adds. */
import { z } from 'zod';

const TASK_STATUSES = ['pending', 'processing', 'done', 'failed'] as const;

/** The seed's progress stages and their percentages (`ocr_polling` spans 20 to 80). */
export const STAGES = {
  pending: 0,
  queued: 5,
  uploading: 10,
  ocr_polling: 20,
  downloading_result: 85,
  uploading_pdf: 86,
  indexing: 88,
  summarizing: 95,
  done: 100,
} as const;
export type Stage = keyof typeof STAGES;

export const TaskRecordSchema = z.object({
  task_id: z.string(),
  status: z.enum(TASK_STATUSES),
  stage: z.string(),
  progress_pct: z.number().int().min(0).max(100),
  stage_detail: z.string(),
  /** Timestamps without zone, as the seed shows them (UTC). */
  created_at: z.string(),
  started_at: z.string().optional(),
  error: z.string().optional(),
  error_code: z.union([z.string(), z.number()]).optional(),
  /** Pelita: time from queued to taken by a worker, and from taken to the end. */
  queue_wait_ms: z.number().int().optional(),
  processing_ms: z.number().int().optional(),
  finished_at: z.string().optional(),
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** `2026-11-24T01:50:00.123`: ISO 8601 in UTC without the zone designator, as the seed shows. */
export function timestampWithoutZone(at = new Date()): string {
  return at.toISOString().replace(/Z$/, '');
}
