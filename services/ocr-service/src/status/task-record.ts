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

const SUMMARY_STATUSES = ['pending', 'running', 'done', 'failed'] as const;

/**
 * Pelita: the document summary's own state. Summaries run in a pool of their own after the task
 * is `done` (the seed's background pool), so the task's status does not wait for them.
 */
export const SummaryStateSchema = z.object({
  status: z.enum(SUMMARY_STATUSES),
  /** Times a summary worker has started it (a worker that died mid-summary counts). */
  attempts: z.number().int().min(0),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  /** Present only when `failed`. */
  error: z.string().optional(),
});
export type SummaryState = z.infer<typeof SummaryStateSchema>;

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
  /** Present once the task is `done` on an install with a summarizer. */
  summary: SummaryStateSchema.optional(),
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** `2026-11-24T01:50:00.123`: ISO 8601 in UTC without the zone designator, as the seed shows. */
export function timestampWithoutZone(at = new Date()): string {
  return at.toISOString().replace(/Z$/, '');
}
