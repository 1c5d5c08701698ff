/**
 * The SQL of deletions: the rows deleted (a workspace's cascade to everything in it) and the
 * deletion jobs table (migration 012), one row per deleted workspace, document or audio, holding
 * what it left outside PostgreSQL until the worker has removed it. A job is leased
 * (`lease_until`, `for update skip locked`) like the document follower's documents, so replicas
 * share the work and a replica that dies leaves a lease that expires.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction } from '@pelita/kit';
import type pg from 'pg';
import type { IndexedType } from '../retrieval/knowledge-index';

export interface OcrTaskLeftover {
  taskId: string;
  /**
   * The task may still write (queued, processing, or a summary awaited): its chunks, summary and
   * PDF are removed again once it has ended, so nothing it writes late is left behind.
   */
  running: boolean;
}

/** What a deleted resource left outside PostgreSQL (`leftovers.ts` works it out). */
export interface Leftovers {
  /** Every passage of this workspace in the knowledge index. */
  workspacePassages?: string;
  /** Passages of these resources in the knowledge index. */
  resources: Array<{ type: IndexedType; id: string }>;
  /** OCR tasks whose chunks (result index), summaries (both summary indexes) and PDF go. */
  ocrTasks: OcrTaskLeftover[];
  /** Keys in the bucket: kept originals and recordings. */
  objects: string[];
}

/** The columns of a document row the leftovers are worked out from. */
export interface DocumentRow {
  id: string;
  source: string;
  attempt: number;
  original_key: string | null;
  state: string;
  summary_state: string;
}

/** The columns of an audio row the leftovers are worked out from. */
export interface AudioRow {
  id: string;
  original_key: string;
}

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

const DOCUMENT_COLUMNS = 'id, source, attempt, original_key, state, summary_state';

export function createDeletionRepository(
  pool: pg.Pool,
  options: {
    /** How long a replica holds a job it runs (a job run twice does no harm: removal is idempotent). */
    leaseMs?: number;
    /** Drops a resource's access list, in the deleting transaction. */
    forgetAccess: (type: 'document' | 'audio', id: string, db: pg.PoolClient) => Promise<void>;
  },
) {
  const leaseSeconds = (options.leaseMs ?? 300_000) / 1000;

  /**
   * Records a job in the deleting transaction, leased to the caller, who runs it at once; the
   * worker takes it when that run fails or the process dies.
   */
  async function add(
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
  }

  /** Deletes one document's or audio's row (`deleteSql` returns it) and access list, with its job. */
  function deleteResource<Row extends { workspace_id: string }>(
    kind: 'document' | 'audio',
    deleteSql: string,
    id: string,
    leftovers: (row: Row) => Leftovers,
  ): Promise<string | undefined> {
    return inTransaction(pool, async (client) => {
      const { rows } = await client.query<Row>(deleteSql, [id]);
      if (!rows[0]) return undefined;
      await options.forgetAccess(kind, id, client);
      return add(client, {
        kind,
        targetId: id,
        workspaceId: rows[0].workspace_id,
        leftovers: leftovers(rows[0]),
      });
    });
  }

  return {
    /**
     * Deletes the workspace (its rows cascade to everything in it) and records its job, with
     * the leftovers of the documents and audios it held; the job's id, none when it is gone.
     */
    deleteWorkspace(
      workspaceId: string,
      leftovers: (documents: DocumentRow[], audios: AudioRow[]) => Leftovers,
    ): Promise<string | undefined> {
      return inTransaction(pool, async (client) => {
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
        const id = await add(client, {
          kind: 'workspace',
          targetId: workspaceId,
          workspaceId,
          leftovers: leftovers(documents, audios),
        });
        await client.query('delete from workspaces where id = $1', [workspaceId]);
        return id;
      });
    },

    /** Deletes the document with its access list and records its job; none when it is gone. */
    deleteDocument: (documentId: string, leftovers: (row: DocumentRow) => Leftovers) =>
      deleteResource<DocumentRow & { workspace_id: string }>(
        'document',
        `delete from documents where id = $1 returning ${DOCUMENT_COLUMNS}, workspace_id`,
        documentId,
        leftovers,
      ),

    /** Deletes the audio with its access list and records its job; none when it is gone. */
    deleteAudio: (audioId: string, leftovers: (row: AudioRow) => Leftovers) =>
      deleteResource<AudioRow & { workspace_id: string }>(
        'audio',
        'delete from audios where id = $1 returning id, original_key, workspace_id',
        audioId,
        leftovers,
      ),

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

export type DeletionRepository = ReturnType<typeof createDeletionRepository>;
