/** The task API's own series; the task and queue gauges come from `ocr-metrics.ts`. */
import { Counter, type Registry } from 'prom-client';

export function createSubmittedCounter(registry: Registry): Counter<'outcome' | 'processing'> {
  return new Counter({
    name: 'ocr_tasks_submitted_total',
    help: 'Tasks submitted to the queue, by outcome (queued, queue_full) and engine',
    labelNames: ['outcome', 'processing'] as const,
    registers: [registry],
  });
}
