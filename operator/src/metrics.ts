/** The operator's own Prometheus metrics, registered beside the kit's process metrics. */
import type { Metrics } from '@pelita/kit';
import { Counter, Gauge, Histogram } from 'prom-client';

export interface OperatorMetrics {
  reconcileTotal: Counter<'result'>;
  reconcileErrors: Counter;
  reconcileDuration: Histogram;
  queueDepth: Gauge;
  activeReconciles: Gauge;
  watchEvents: Counter<'kind'>;
  isLeader: Gauge;
  installs: Gauge<'ready'>;
  kubeRequests: Counter<'verb'>;
}

export function createOperatorMetrics({ registry }: Metrics): OperatorMetrics {
  const registers = [registry];
  return {
    reconcileTotal: new Counter({
      name: 'pelita_operator_reconcile_total',
      help: 'Reconciles of PlatformInstalls, by result (success, error)',
      labelNames: ['result'] as const,
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'pelita_operator_reconcile_errors_total',
      help: 'Reconciles that failed and were requeued with backoff',
      registers,
    }),
    reconcileDuration: new Histogram({
      name: 'pelita_operator_reconcile_duration_seconds',
      help: 'Duration of one reconcile of one PlatformInstall',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'pelita_operator_queue_depth',
      help: 'PlatformInstall keys waiting in the work queue (not counting delayed retries)',
      registers,
    }),
    activeReconciles: new Gauge({
      name: 'pelita_operator_active_reconciles',
      help: 'Reconciles running now',
      registers,
    }),
    watchEvents: new Counter({
      name: 'pelita_operator_watch_events_total',
      help: 'Adds, updates and deletes seen by the watches (re-lists included), by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    isLeader: new Gauge({
      name: 'pelita_operator_is_leader',
      help: '1 while this replica holds the leader Lease',
      registers,
    }),
    installs: new Gauge({
      name: 'pelita_operator_platforminstalls',
      help: 'PlatformInstalls seen, by the status of their Ready condition',
      labelNames: ['ready'] as const,
      registers,
    }),
    kubeRequests: new Counter({
      name: 'pelita_operator_kube_requests_total',
      help: 'Requests sent to the Kubernetes API, by verb',
      labelNames: ['verb'] as const,
      registers,
    }),
  };
}
