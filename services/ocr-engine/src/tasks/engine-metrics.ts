/** The engine's own metrics, beside the kit's request metrics. */
import { declareSeries } from '@pelita/kit';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface EngineMetrics {
  tasks: Counter<'outcome'>;
  pages: Counter;
  queueDepth: Gauge;
  taskDuration: Histogram;
}

export function createEngineMetrics(registry: Registry): EngineMetrics {
  return declareSeries(registry, {
    tasks: {
      kind: 'counter',
      name: 'ocr_engine_tasks_total',
      help: 'Tasks finished, by outcome (completed, failed)',
      labels: ['outcome'],
    },
    pages: {
      kind: 'counter',
      name: 'ocr_engine_pages_total',
      help: 'Pages extracted (text layer or OCR)',
    },
    queueDepth: {
      kind: 'gauge',
      name: 'ocr_engine_queue_depth',
      help: 'Tasks waiting for a free slot',
    },
    taskDuration: {
      kind: 'histogram',
      name: 'ocr_engine_task_duration_seconds',
      help: 'Time from a task starting to its end',
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
    },
  });
}
