/**
 * What a worker needs to run a task, written by the API next to the status record before the
 * task is queued: where the inputs are staged, whether they are merged, which engine, and the
 * caller's options. Kept in Redis with the status, removed with it.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';

export const JobSchema = z.object({
  task_id: z.string(),
  /** The document's name (`pdf_name` of the chunks). */
  pdf_name: z.string(),
  /** Staged uploads in order: their object key and the file name they came with. */
  inputs: z.array(z.object({ key: z.string(), name: z.string() })).min(1),
  /** Several inputs joined into one PDF (`/pdfs/merge`). */
  merge: z.boolean(),
  processing: z.enum(['cloud', 'local']),
  type_ocr: z.enum(['ekstrak_only', 'representasi']),
  representasi_count: z.number().int().min(0),
  metadata_document: z.record(z.string(), z.unknown()).optional(),
});
export type Job = z.infer<typeof JobSchema>;

export interface JobStore {
  save(job: Job): Promise<void>;
  get(taskId: string): Promise<Job | undefined>;
  remove(taskId: string): Promise<void>;
}

export function createJobStore(redis: Redis, prefix: string): JobStore {
  const key = (taskId: string) => `${prefix}:job:${taskId}`;
  return {
    async save(job) {
      await redis.set(key(job.task_id), JSON.stringify(job));
    },
    async get(taskId) {
      const raw = await redis.get(key(taskId));
      return raw ? JobSchema.parse(JSON.parse(raw)) : undefined;
    },
    async remove(taskId) {
      await redis.del(key(taskId));
    },
  };
}
