/** The operator's own Prometheus metrics, registered beside the kit's process metrics. */
import { declareSeries, type Metrics } from '@pelita/kit';
import type { Counter, Gauge, Histogram } from 'prom-client';

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
  return declareSeries(registry, {
    reconcileTotal: {
      kind: 'counter',
      name: 'pelita_operator_reconcile_total',
      help: 'Reconciles of PlatformInstalls, by result (success, error)',
      labels: ['result'],
    },
    reconcileErrors: {
      kind: 'counter',
      name: 'pelita_operator_reconcile_errors_total',
      help: 'Reconciles that failed and were requeued with backoff',
    },
    reconcileDuration: {
      kind: 'histogram',
      name: 'pelita_operator_reconcile_duration_seconds',
      help: 'Duration of one reconcile of one PlatformInstall',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    },
    queueDepth: {
      kind: 'gauge',
      name: 'pelita_operator_queue_depth',
      help: 'PlatformInstall keys waiting in the work queue (not counting delayed retries)',
    },
    activeReconciles: {
      kind: 'gauge',
      name: 'pelita_operator_active_reconciles',
      help: 'Reconciles running now',
    },
    watchEvents: {
      kind: 'counter',
      name: 'pelita_operator_watch_events_total',
      help: 'Adds, updates and deletes seen by the watches (re-lists included), by kind',
      labels: ['kind'],
    },
    isLeader: {
      kind: 'gauge',
      name: 'pelita_operator_is_leader',
      help: '1 while this replica holds the leader Lease',
    },
    installs: {
      kind: 'gauge',
      name: 'pelita_operator_platforminstalls',
      help: 'PlatformInstalls seen, by the status of their Ready condition',
      labels: ['ready'],
    },
    kubeRequests: {
      kind: 'counter',
      name: 'pelita_operator_kube_requests_total',
      help: 'Requests sent to the Kubernetes API, by verb',
      labels: ['verb'],
    },
  });
}
