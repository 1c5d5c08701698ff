/**
 * The OCR service's own Prometheus series. Task and queue gauges are read from Redis when
 * scraped (the state is shared by every replica: any one answers for all, so dashboards take
 * `max` across replicas, not `sum`). The rest is counted by the worker that did the work.
 */
import { declareSeries } from '@pelita/kit';
import { Gauge, type Counter, type Histogram, type Registry } from 'prom-client';
import type { TaskQueue } from './queue/task-queue';
import type { StatusStore } from './status/status-store';

export interface OcrMetrics {
  stageDuration: Histogram<'stage'>;
  tasksFinished: Counter<'status' | 'processing'>;
  enginePolls: Counter<'engine'>;
  conversionDuration: Histogram<'operation'>;
  summaries: Counter<'outcome'>;
}

const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Series every part counts (both the API and the workers register them). */
export function createOcrMetrics(registry: Registry): OcrMetrics {
  return declareSeries(registry, {
    stageDuration: {
      kind: 'histogram',
      name: 'ocr_stage_duration_seconds',
      help: 'Time a task spent in each pipeline stage (queued covers download, conversion and merge)',
      labels: ['stage'],
      buckets: SECONDS,
    },
    tasksFinished: {
      kind: 'counter',
      name: 'ocr_tasks_finished_total',
      help: 'Tasks a worker finished, by final status and engine',
      labels: ['status', 'processing'],
    },
    enginePolls: {
      kind: 'counter',
      name: 'ocr_engine_polls_total',
      help: 'Status polls sent to the OCR engines, by engine',
      labels: ['engine'],
    },
    conversionDuration: {
      kind: 'histogram',
      name: 'ocr_conversion_duration_seconds',
      help: 'Calls to the office converter, by operation (convert, merge)',
      labels: ['operation'],
      buckets: SECONDS,
    },
    summaries: {
      kind: 'counter',
      name: 'ocr_summaries_total',
      help: 'Summarise hand-offs after indexing, by outcome (ok, failed, skipped when no summarizer is set)',
      labels: ['outcome'],
    },
  });
}

/** Gauges read from the shared state at scrape time. */
export function registerStateGauges(
  registry: Registry,
  state: { queue: TaskQueue; statuses: StatusStore },
): void {
  new Gauge({
    name: 'ocr_tasks',
    help: 'Task status records kept, by status and stage',
    labelNames: ['status', 'stage'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { status, stage, count } of await state.statuses.counts())
        this.set({ status, stage }, count);
    },
  });
  const depth = () => state.queue.depth();
  new Gauge({
    name: 'ocr_queue_depth',
    help: 'Tasks in the queue, waiting or running',
    registers: [registry],
    async collect() {
      this.set((await depth()).length);
    },
  });
  new Gauge({
    name: 'ocr_queue_oldest_age_seconds',
    help: 'Age of the oldest task in the queue',
    registers: [registry],
    async collect() {
      this.set((await depth()).oldestAgeMs / 1000);
    },
  });
}
