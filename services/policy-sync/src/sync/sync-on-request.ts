/**
 * A caller's sync request: tell the other replicas, sync here, then wait (a bounded time) for
 * the others to acknowledge theirs — the answer says how many replicas hold the change, so a
 * caller that must know every OPA holds it (the user service's outbox) can try again until
 * they do.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@pelita/kit';
import type { Source } from './policy-data';
import type { PolicySync, SyncResult } from './sync';
import type { TriggerBus } from './triggers';

export interface ReplicaCount {
  /** Replicas that were listening for the trigger, this one included. */
  expected: number;
  /** Replicas whose OPA holds the change: this one and every peer that acknowledged. */
  confirmed: number;
}

export type SyncOnRequest = (
  source: Source,
  log: Logger,
) => Promise<SyncResult & { replicas: ReplicaCount }>;

export function createSyncOnRequest(
  sync: PolicySync,
  bus: TriggerBus | undefined,
  peerTimeoutMs: number,
): SyncOnRequest {
  return async function syncOnRequest(source, log) {
    if (!bus) return { ...(await sync.sync([source], 'request')), replicas: ONE_OF_ONE };
    const request = randomUUID();
    const acks = bus.collectAcks(request);
    // Not awaited before syncing: this replica's sync runs meanwhile.
    const told = bus.publish([source], request).then(
      () => true,
      (err: unknown) => {
        log.warn(
          { err },
          'could not trigger the other replicas; their periodic resync will catch up',
        );
        return false;
      },
    );
    const result = await sync.sync([source], 'request');
    // Who listened is asked after this replica's sync, so the wait below is its only delay.
    const replicas = await bus.countReplicas().catch(() => undefined);
    if (!(await told) || replicas === undefined) {
      // Redis is away: the others cannot be told, nor counted. One more than confirmed says
      // "not every replica", so a caller that needs them all tries again.
      void acks.wait(0, 0);
      return { ...result, replicas: { expected: 2, confirmed: 1 } };
    }
    const peers = Math.max(0, replicas - 1);
    const confirmed = 1 + (await acks.wait(peers, peerTimeoutMs));
    if (confirmed < replicas) {
      log.warn({ confirmed, expected: replicas }, 'not every replica confirmed the sync in time');
    }
    return { ...result, replicas: { expected: Math.max(replicas, 1), confirmed } };
  };
}

const ONE_OF_ONE: ReplicaCount = { expected: 1, confirmed: 1 };
