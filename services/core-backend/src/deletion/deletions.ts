/**
 * Deleting a workspace, document or audio so that nothing is left anywhere. One transaction
 * deletes the rows (the workspace's cascade to everything in it) and records a deletion job with
 * what they left on the other servers; from then on the resource answers 404 to everyone. The
 * job is run at once, and when that fails (OpenSearch or object storage away, the process
 * stopped) the deletion worker of any replica runs it again, with a doubling pause, until it
 * succeeds. The rows go first: the document follower and the audio worker write passages while
 * holding their row, so they finish before the deletion takes it, or find no row after.
 */
import {
  createPollLoop,
  declareSeries,
  errorMessage,
  type Logger,
  type PollOutcome,
} from '@pelita/kit';
import type { Registry } from 'prom-client';
import type { DeletionJob, DeletionRepository } from './deletion-repository';
import { audioLeftovers, documentLeftovers, retryDelayMs, workspaceLeftovers } from './leftovers';
import { removeLeftovers, type LeftoverStores } from './remove-leftovers';

export interface DeletionsOptions extends LeftoverStores {
  /** The rows and the jobs (`deletion-repository.ts`). */
  jobs: DeletionRepository;
  logger: Logger;
  registry: Registry;
  /** How often the worker looks for due jobs, and the first pause after a failure. */
  intervalMs?: number;
  /** With no job left, its rounds space out up to this (IDLE_POLL_MAX_MS). */
  idlePollMaxMs?: number;
  /** The longest pause between two tries. */
  maxRetryMs?: number;
  /** How long a finished job stays as the record of the deletion. */
  keepFinishedMs?: number;
}

export function createDeletions(options: DeletionsOptions) {
  const { jobs, logger } = options;
  const intervalMs = options.intervalMs ?? 5000;
  const maxRetryMs = options.maxRetryMs ?? 600_000;
  const { runs, pending } = declareSeries(options.registry, {
    runs: {
      kind: 'counter',
      name: 'core_deletion_runs_total',
      help: 'Runs of deletion jobs, by outcome (done; waiting for an OCR task to end; failed, retried)',
      labels: ['outcome'],
    },
    pending: {
      kind: 'gauge',
      name: 'core_deletion_jobs_pending',
      help: 'Deletions whose leftovers outside PostgreSQL are not all removed yet (last worker round)',
    },
  });

  /** Runs one leased job; never throws (a failure is recorded on the job and retried). */
  async function run(job: DeletionJob): Promise<void> {
    try {
      const running = await removeLeftovers(options, job.leftovers, job.created_at);
      if (running.length === 0) {
        await jobs.finish(job.id);
        runs.inc({ outcome: 'done' });
        return;
      }
      await jobs.later(job.id, intervalMs, `waiting for OCR tasks ${running.join(', ')}`, false);
      runs.inc({ outcome: 'waiting' });
    } catch (err) {
      const reason = errorMessage(err);
      const attempts = job.attempts + 1;
      logger.warn(
        { job: job.id, kind: job.kind, target: job.target_id, attempts, err: reason },
        'deleting leftovers failed; retried later',
      );
      runs.inc({ outcome: 'failed' });
      await jobs
        .later(job.id, retryDelayMs(attempts, intervalMs, maxRetryMs), reason, true)
        .catch((cause: unknown) =>
          // The lease expires: the job is taken again then.
          logger.warn({ job: job.id, err: errorMessage(cause) }, 'recording a deletion failure'),
        );
    }
  }

  /** Runs the job the deletion just recorded (none: it was gone already). */
  async function runNow(id: string | undefined): Promise<void> {
    const job = id && (await jobs.get(id));
    if (job) await run(job);
  }

  /** `waiting` while some job is not finished: it is looked at every interval. */
  async function runRound(): Promise<PollOutcome> {
    try {
      for (const job of await jobs.lease(10)) await run(job);
      const left = await jobs.pending();
      pending.set(left);
      await jobs.prune(options.keepFinishedMs ?? 30 * 86_400_000);
      return left > 0 ? 'waiting' : 'idle';
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'deletion round failed; tried again next round');
      return 'waiting';
    }
  }
  const loop = createPollLoop({
    round: runRound,
    intervalMs,
    idleMaxMs: options.idlePollMaxMs ?? intervalMs,
  });

  return {
    /** Deletes the workspace with everything in it; a no-op when it is already gone. */
    workspace: async (workspaceId: string): Promise<void> =>
      runNow(
        await jobs.deleteWorkspace(workspaceId, (documents, audios) =>
          workspaceLeftovers(workspaceId, documents, audios),
        ),
      ),

    /** Deletes the document and everything made of it; a no-op when it is already gone. */
    document: async (documentId: string): Promise<void> =>
      runNow(await jobs.deleteDocument(documentId, documentLeftovers)),

    /** Deletes the audio and everything made of it; a no-op when it is already gone. */
    audio: async (audioId: string): Promise<void> =>
      runNow(await jobs.deleteAudio(audioId, audioLeftovers)),

    start: () => loop.start(),
    /** Stops after the round under way. */
    stop: () => loop.stop(),
    /** One round now (tests). */
    runRound,
  };
}
