/**
 * The deletion jobs table (migration 012): one row per deleted workspace, document or audio,
 * holding what it left outside PostgreSQL until the worker has removed it. A job is leased
 * (`lease_until`, `for update skip locked`) like the document follower's documents, so replicas
 * share the work and a replica that dies leaves a lease that expires.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Leftovers } from './leftovers';

export type DeletionKind = 'workspace' | 'document' | 'audio';

export interface DeletionJob {
  id: string;
  kind: DeletionKind;
  target_id: string;
  workspace_id: string;
  leftovers: Leftovers;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

type Queryable = Pick<pg.Pool, 'query'>;

export function createDeletionJobs(pool: pg.Pool, leaseMs: number) {
  const leaseSeconds = leaseMs / 1000;
  return {
    /**
     * Records a job in the caller's transaction (the one deleting the rows), leased to the caller,
     * who runs it at once; the worker takes it when that run fails or the process dies.
     */
    async add(
      db: Queryable,
      job: { kind: DeletionKind; targetId: string; workspaceId: string; leftovers: Leftovers },
    ): Promise<string> {
      const id = randomUUID();
      await db.query(
        `insert into deletion_jobs (id, kind, target_id, workspace_id, leftovers, lease_until)
         values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
        [id, job.kind, job.targetId, job.workspaceId, JSON.stringify(job.leftovers), leaseSeconds],
      );
      return id;
    },

    /** Unfinished jobs that are due and not held by another replica, now leased to this one. */
    async lease(batch: number): Promise<DeletionJob[]> {
      const { rows } = await pool.query<DeletionJob>(
        `update deletion_jobs set lease_until = now() + make_interval(secs => $1)
         where id in (
           select id from deletion_jobs
           where finished_at is null and run_after <= now()
             and (lease_until is null or lease_until < now())
           order by run_after limit $2 for update skip locked)
         returning *`,
        [leaseSeconds, batch],
      );
      return rows;
    },

    async get(id: string): Promise<DeletionJob | undefined> {
      const { rows } = await pool.query<DeletionJob>('select * from deletion_jobs where id = $1', [
        id,
      ]);
      return rows[0];
    },

    async finish(id: string): Promise<void> {
      await pool.query(
        `update deletion_jobs set finished_at = now(), lease_until = null, last_error = null
         where id = $1`,
        [id],
      );
    },

    /** Tries again after `delayMs`; `failed` counts an attempt (waiting for a task does not). */
    async later(id: string, delayMs: number, reason: string, failed: boolean): Promise<void> {
      await pool.query(
        `update deletion_jobs set lease_until = null, last_error = $2,
           attempts = attempts + $3, run_after = now() + make_interval(secs => $4)
         where id = $1`,
        [id, reason, failed ? 1 : 0, delayMs / 1000],
      );
    },

    async pending(): Promise<number> {
      const { rows } = await pool.query<{ n: number }>(
        'select count(*)::int as n from deletion_jobs where finished_at is null',
      );
      return rows[0]?.n ?? 0;
    },

    /** Drops the records of jobs finished longer ago than `keepMs`. */
    async prune(keepMs: number): Promise<void> {
      await pool.query(
        `delete from deletion_jobs
         where finished_at is not null and finished_at < now() - make_interval(secs => $1)`,
        [keepMs / 1000],
      );
    },
  };
}
