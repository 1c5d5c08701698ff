/**
 * Removes a deletion job's leftovers from the servers outside PostgreSQL: passages from the
 * knowledge index, OCR chunks and summaries from the ocr-service's indexes with its stored PDF,
 * kept originals and recordings from the bucket. Every step tolerates what is already gone, so
 * a job is simply run again from the start after a failure or a restart.
 */
import type { OcrArtifacts } from '../documents/ocr-artifacts';
import type { OcrClient } from '../documents/ocr-client';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Leftovers, OcrTaskLeftover } from './deletion-repository';

export interface LeftoverStores {
  knowledge: KnowledgeIndex;
  artifacts: OcrArtifacts;
  /** Unset without URL_OCR: no task can be running then. */
  ocr: OcrClient | undefined;
  /** Unset without S3 settings: nothing was stored then. */
  objects: { remove(key: string): Promise<void> } | undefined;
  /** How long after its task ended a document summary may still be written (SUMMARY_WAIT_MS). */
  summaryWaitMs: number;
}

/**
 * Removes everything now; answers the OCR tasks that may still write (the job then runs again
 * until they have ended, removing what they wrote meanwhile).
 */
export async function removeLeftovers(
  stores: LeftoverStores,
  leftovers: Leftovers,
  since: Date,
): Promise<string[]> {
  // Every step is tried even when one before it failed (an index shard still recovering must
  // not keep the files in the bucket until the retry); the first failure is thrown at the end.
  const failures: unknown[] = [];
  const attempt = async (step: () => Promise<unknown>) => {
    await step().catch((err: unknown) => failures.push(err));
  };
  if (leftovers.workspacePassages) {
    const workspaceId = leftovers.workspacePassages;
    await attempt(() => stores.knowledge.removeWorkspace(workspaceId));
  }
  for (const resource of leftovers.resources) {
    await attempt(() => stores.knowledge.remove(resource.type, resource.id));
  }
  const running: string[] = [];
  for (const task of leftovers.ocrTasks) {
    // Asked before removing: what an ended task wrote is then all there to remove.
    await attempt(async () => {
      if (task.running && !(await ended(stores, task, since))) running.push(task.taskId);
      await stores.artifacts.remove(task.taskId);
    });
  }
  for (const key of leftovers.objects) await attempt(async () => stores.objects?.remove(key));
  if (failures.length > 0) throw failures[0];
  return running;
}

/** Whether a task writes no more: unknown, failed, or done with its summary written or given up. */
async function ended(stores: LeftoverStores, task: OcrTaskLeftover, since: Date) {
  if (!stores.ocr) return true;
  const status = await stores.ocr.status(task.taskId);
  if (!status || status.status === 'failed') return true;
  if (status.status !== 'done') return false;
  if (Date.now() - since.getTime() >= stores.summaryWaitMs) return true;
  return (await stores.artifacts.summary(task.taskId)) !== undefined;
}
