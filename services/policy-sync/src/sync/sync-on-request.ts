/** A caller's sync request: tell the other replicas, and sync here before answering. */
import type { Logger } from '@pelita/kit';
import type { Source } from './policy-data';
import type { PolicySync, SyncResult } from './sync';
import type { TriggerBus } from './triggers';

export type SyncOnRequest = (source: Source, log: Logger) => Promise<SyncResult>;

export function createSyncOnRequest(sync: PolicySync, bus: TriggerBus | undefined): SyncOnRequest {
  return async function syncOnRequest(source, log) {
    // Not awaited before syncing: the caller's answer depends on this replica's sync only.
    const told = bus?.publish([source]).catch((err: unknown) => {
      log.warn(
        { err },
        'could not trigger the other replicas; their periodic resync will catch up',
      );
    });
    try {
      return await sync.sync([source], 'request');
    } finally {
      await told;
    }
  };
}
