/** Prometheus series of the forwarded calls, by outcome: `2xx`..`5xx` when the target answered, else the error code. */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface UpstreamMetrics {
  record(outcome: string, seconds: number): void;
}

export function createUpstreamMetrics(registry: Registry): UpstreamMetrics {
  const requests = new Counter({
    name: 'http_proxy_upstream_requests_total',
    help: 'Forwarded calls by outcome: the status class of the target answer, or why there was none',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_proxy_upstream_duration_seconds',
    help: 'Time from the start of a forwarded call (incl. JWT login and redirects) to its end',
    labelNames: ['outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  // One labelled child per outcome, made once: prom-client otherwise hashes the label object on
  // every inc/observe.
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  return {
    record(outcome, seconds) {
      let child = children.get(outcome);
      if (!child) {
        const counter = requests.labels({ outcome });
        const histogram = duration.labels({ outcome });
        child = { count: () => counter.inc(), observe: (value) => histogram.observe(value) };
        children.set(outcome, child);
      }
      child.count();
      child.observe(seconds);
    },
  };
}
