/** The sync's Prometheus metrics, registered on the service's registry. */
import { declareSeries } from '@pelita/kit';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What started a sync: a caller, a peer replica's trigger, a timer, start-up, a probe. */
export type Trigger = 'request' | 'peer' | 'reconnect' | 'resync' | 'startup' | 'opa_watch';

/** `success`; `rejected`: the user service answered non-200 (the 403); `error`: anything else. */
export type SyncOutcome = 'success' | 'rejected' | 'error';

export interface SyncMetrics {
  triggers: Counter<'trigger'>;
  syncs: Counter<'kind' | 'outcome'>;
  duration: Histogram<'outcome'>;
  lastSuccess: Gauge<'kind'>;
  opaPushes: Counter<'reason' | 'outcome'>;
}

export function createSyncMetrics(registry: Registry): SyncMetrics {
  return declareSeries(registry, {
    triggers: {
      kind: 'counter',
      name: 'policy_sync_triggers_total',
      help: 'Sync requests received, by trigger (request, peer, reconnect, resync, startup, opa_watch)',
      labels: ['trigger'],
    },
    syncs: {
      kind: 'counter',
      name: 'policy_sync_syncs_total',
      help: 'Syncs run, by kind (user_roles, role_grants, verify) and outcome (success, rejected, error)',
      labels: ['kind', 'outcome'],
    },
    duration: {
      kind: 'histogram',
      name: 'policy_sync_duration_seconds',
      help: 'Duration of one sync pass (fetch, file write, OPA push), by outcome',
      labels: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    },
    lastSuccess: {
      kind: 'gauge',
      name: 'policy_sync_last_success_timestamp_seconds',
      help: 'Unix time of the last sync that reached OPA, by kind (user_roles, role_grants)',
      labels: ['kind'],
    },
    opaPushes: {
      kind: 'counter',
      name: 'policy_sync_opa_pushes_total',
      help: 'Whole-document pushes to OPA, by reason (sync, restore) and outcome (success, error)',
      labels: ['reason', 'outcome'],
    },
  });
}
