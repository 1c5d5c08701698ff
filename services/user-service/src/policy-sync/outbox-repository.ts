/** SQL of the policy-sync outbox (migration 007): rows written with a change, claimed, confirmed. */
import { currentTraceparent, type Db } from '@pelita/kit';
import type { Pool, PoolClient } from 'pg';

export type SyncTarget = 'role-users' | 'role-grants';

export interface OutboxRow {
  id: string;
  target: SyncTarget;
  attempts: number;
  createdAt: Date;
  /** The trace of the request that made the change (W3C traceparent), when it was traced. */
  traceparent: string | null;
}

export function createOutboxRepository(pool: Pool) {
  return {
    /**
     * One row per target, on the transaction of the change (`db`), carrying the trace of the
     * request making it (migration 009): the delivery joins that trace.
     */
    async add(db: Db, targets: readonly SyncTarget[]): Promise<void> {
      await db.query(
        'insert into policy_sync_outbox (target, traceparent) select unnest($1::text[]), $2',
        [[...targets], currentTraceparent() ?? null],
      );
    },
    /**
     * Locks, for the caller's transaction (`client`), every row of each target that has a row
     * due: one call confirms them all, however their retries were spread. Rows another replica
     * holds are skipped, not waited for, so replicas share the work without sending one twice.
     */
    async claimDue(client: PoolClient, limit: number): Promise<OutboxRow[]> {
      const { rows } = await client.query<OutboxRow>(
        `select id, target, attempts, created_at as "createdAt", traceparent
         from policy_sync_outbox
         where target in (select target from policy_sync_outbox
                          where next_attempt_at <= clock_timestamp())
         order by id limit $1 for update skip locked`,
        [limit],
      );
      return rows;
    },
    /** Deletes the confirmed rows; returns the seconds each waited since its change. */
    async confirm(client: PoolClient, ids: string[]): Promise<number[]> {
      const { rows } = await client.query<{ seconds: number }>(
        `delete from policy_sync_outbox where id = any($1::bigint[])
         returning extract(epoch from clock_timestamp() - created_at)::float8 as seconds`,
        [ids],
      );
      return rows.map((row) => row.seconds);
    },
    /** Counts a failed attempt on each row and sets its next one `delayMs` ahead. */
    async postpone(client: PoolClient, ids: string[], delayMs: number, error: string) {
      await client.query(
        `update policy_sync_outbox set attempts = attempts + 1, last_error = $3,
           next_attempt_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000)
         where id = any($1::bigint[])`,
        [ids, delayMs, error],
      );
    },
    /** Rows waiting, and the milliseconds until the next one is due (0 when one is due now). */
    async pending(): Promise<{ count: number; nextDueMs: number | undefined }> {
      // No row, no due time: SQL's greatest() would make 0 of the null, and the dispatcher
      // would look again at once, for ever.
      const { rows } = await pool.query<{ n: string; due: number | null }>(
        `select count(*) as n,
           (extract(epoch from min(next_attempt_at) - clock_timestamp()) * 1000)::float8 as due
         from policy_sync_outbox`,
      );
      const due = rows[0]?.due;
      return {
        count: Number(rows[0]?.n ?? 0),
        nextDueMs: due === null || due === undefined ? undefined : Math.max(0, due),
      };
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
