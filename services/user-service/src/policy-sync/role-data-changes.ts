/**
 * A change of role data (users, roles, features, sub-features, policies) and its outbox rows in
 * one transaction: the change cannot be committed without policy-sync being told of it later,
 * nor the other way round.
 */
import type { Pool } from 'pg';
import { inTransaction, type Db } from '@pelita/kit';
import type { OutboxDispatcher } from './outbox-dispatcher';
import type { OutboxRepository, SyncTarget } from './outbox-repository';

export type { SyncTarget } from './outbox-repository';

export interface RoleDataChanges {
  /**
   * Runs `work` in one transaction with an outbox row per target (none when `targets` is
   * empty); the dispatcher is woken once it is committed.
   */
  apply<T>(targets: readonly SyncTarget[], work: (db: Db) => Promise<T>): Promise<T>;
}

/** Without a dispatcher (no POLICY_SYNC_URL) changes are made and nothing is queued. */
export function createRoleDataChanges(
  pool: Pool,
  outbox: OutboxRepository,
  dispatcher: OutboxDispatcher | undefined,
): RoleDataChanges {
  return {
    async apply(targets, work) {
      const queued = dispatcher ? [...new Set(targets)] : [];
      const result = await inTransaction(pool, async (db) => {
        const done = await work(db);
        if (queued.length > 0) await outbox.add(db, queued);
        return done;
      });
      if (queued.length > 0) dispatcher?.wake();
      return result;
    },
  };
}
