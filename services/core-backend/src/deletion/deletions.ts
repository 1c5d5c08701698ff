/**
 * Deleting a workspace, document or audio so that nothing is left anywhere. One transaction
 * deletes the rows (the workspace's cascade to everything in it) and records a deletion job with
 * what they left on the other servers; from then on the resource answers 404 to everyone. The
 * job is run at once, and when that fails (OpenSearch or object storage away, the process
 * stopped) the deletion worker of any replica runs it again, with a doubling pause, until it
 * succeeds. The rows go first: the document follower and the audio worker write passages while
 * holding their row, so they finish before the deletion takes it, or find no row after.
 */
import { errorMessage, inTransaction, type Logger } from '@pelita/kit';
import { Counter, Gauge, type Registry } from 'prom-client';
import type pg from 'pg';
import type { AccessLists } from '../access/access-lists';
import { createDeletionJobs, type DeletionJob } from './deletion-jobs';
import {
  audioLeftovers,
  documentLeftovers,
  retryDelayMs,
  workspaceLeftovers,
  type AudioRow,
  type DocumentRow,
  type Leftovers,
} from './leftovers';
import { removeLeftovers, type LeftoverStores } from './remove-leftovers';

export interface DeletionsOptions extends LeftoverStores {
  pool: pg.Pool;
  access: AccessLists;
  logger: Logger;
  registry: Registry;
  /** How often the worker looks for due jobs, and the first pause after a failure. */
  intervalMs?: number;
  /** The longest pause between two tries. */
  maxRetryMs?: number;
  /** How long a replica holds a job it runs (a job run twice does no harm: removal is idempotent). */
  leaseMs?: number;
  /** How long a finished job stays as the record of the deletion. */
  keepFinishedMs?: number;
}

const DOCUMENT_COLUMNS = 'id, source, attempt, original_key, state, summary_state';

export function createDeletions(options: DeletionsOptions) {
  const { pool, logger } = options;
  const intervalMs = options.intervalMs ?? 5000;
  const maxRetryMs = options.maxRetryMs ?? 600_000;
  const jobs = createDeletionJobs(pool, options.leaseMs ?? 300_000);
  const runs = new Counter({
    name: 'core_deletion_runs_total',
    help: 'Runs of deletion jobs, by outcome (done; waiting for an OCR task to end; failed, retried)',
    labelNames: ['outcome'] as const,
    registers: [options.registry],
  });
  const pending = new Gauge({
    name: 'core_deletion_jobs_pending',
    help: 'Deletions whose leftovers outside PostgreSQL are not all removed yet (last worker round)',
    registers: [options.registry],
  });
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

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

  /** Deletes rows and records the job in one transaction, then runs the job. */
  async function deleteNow(
    schedule: (client: pg.PoolClient) => Promise<string | undefined>,
  ): Promise<void> {
    const id = await inTransaction(pool, schedule);
    const job = id && (await jobs.get(id));
    if (job) await run(job);
  }

  /** Deletes one document's or audio's row (`deleteSql` returns it) and access list. */
  function deleteResource<Row extends { workspace_id: string }>(
    kind: 'document' | 'audio',
    deleteSql: string,
    id: string,
    leftovers: (row: Row) => Leftovers,
  ): Promise<void> {
    return deleteNow(async (client) => {
      const { rows } = await client.query<Row>(deleteSql, [id]);
      if (!rows[0]) return undefined;
      await options.access.forget(kind, id, client);
      return jobs.add(client, {
        kind,
        targetId: id,
        workspaceId: rows[0].workspace_id,
        leftovers: leftovers(rows[0]),
      });
    });
  }

  async function runRound(): Promise<void> {
    try {
      for (const job of await jobs.lease(10)) await run(job);
      pending.set(await jobs.pending());
      await jobs.prune(options.keepFinishedMs ?? 30 * 86_400_000);
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'deletion round failed; tried again next round');
    }
  }

  return {
    /** Deletes the workspace with everything in it; a no-op when it is already gone. */
    workspace(workspaceId: string): Promise<void> {
      return deleteNow(async (client) => {
        const { rows: found } = await client.query(
          'select 1 from workspaces where id = $1 for update',
          [workspaceId],
        );
        if (found.length === 0) return undefined;
        // Held until the cascade: a re-processing or a worker cannot change them meanwhile.
        const { rows: documents } = await client.query<DocumentRow>(
          `select ${DOCUMENT_COLUMNS} from documents where workspace_id = $1 for update`,
          [workspaceId],
        );
        const { rows: audios } = await client.query<AudioRow>(
          'select id, original_key from audios where workspace_id = $1 for update',
          [workspaceId],
        );
        const id = await jobs.add(client, {
          kind: 'workspace',
          targetId: workspaceId,
          workspaceId,
          leftovers: workspaceLeftovers(workspaceId, documents, audios),
        });
        await client.query('delete from workspaces where id = $1', [workspaceId]);
        return id;
      });
    },

    /** Deletes the document and everything made of it; a no-op when it is already gone. */
    document(documentId: string): Promise<void> {
      return deleteResource<DocumentRow & { workspace_id: string }>(
        'document',
        `delete from documents where id = $1 returning ${DOCUMENT_COLUMNS}, workspace_id`,
        documentId,
        documentLeftovers,
      );
    },

    /** Deletes the audio and everything made of it; a no-op when it is already gone. */
    audio(audioId: string): Promise<void> {
      return deleteResource<AudioRow & { workspace_id: string }>(
        'audio',
        'delete from audios where id = $1 returning id, original_key, workspace_id',
        audioId,
        audioLeftovers,
      );
    },

    start(): void {
      const tick = () => {
        round = runRound().finally(() => {
          if (timer) timer = setTimeout(tick, intervalMs);
        });
      };
      timer = setTimeout(tick, 0);
    },
    /** Stops after the round under way. */
    async stop(): Promise<void> {
      const waiting = timer;
      timer = undefined;
      clearTimeout(waiting);
      await round;
    },
    /** One round now (tests). */
    runRound,
  };
}
