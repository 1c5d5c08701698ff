/** The sync's Prometheus metrics, registered on the service's registry. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

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
  const registers = [registry];
  return {
    triggers: new Counter({
      name: 'policy_sync_triggers_total',
      help: 'Sync requests received, by trigger (request, peer, reconnect, resync, startup, opa_watch)',
      labelNames: ['trigger'] as const,
      registers,
    }),
    syncs: new Counter({
      name: 'policy_sync_syncs_total',
      help: 'Syncs run, by kind (user_roles, role_grants, verify) and outcome (success, rejected, error)',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'policy_sync_duration_seconds',
      help: 'Duration of one sync pass (fetch, file write, OPA push), by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    lastSuccess: new Gauge({
      name: 'policy_sync_last_success_timestamp_seconds',
      help: 'Unix time of the last sync that reached OPA, by kind (user_roles, role_grants)',
      labelNames: ['kind'] as const,
      registers,
    }),
    opaPushes: new Counter({
      name: 'policy_sync_opa_pushes_total',
      help: 'Whole-document pushes to OPA, by reason (sync, restore) and outcome (success, error)',
      labelNames: ['reason', 'outcome'] as const,
      registers,
    }),
  };
}
