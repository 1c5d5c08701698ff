/** The engine's own metrics, beside the kit's request metrics. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface EngineMetrics {
  tasks: Counter<'outcome'>;
  pages: Counter;
  queueDepth: Gauge;
  taskDuration: Histogram;
}

export function createEngineMetrics(registry: Registry): EngineMetrics {
  return {
    tasks: new Counter({
      name: 'ocr_engine_tasks_total',
      help: 'Tasks finished, by outcome (completed, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    pages: new Counter({
      name: 'ocr_engine_pages_total',
      help: 'Pages extracted (text layer or OCR)',
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'ocr_engine_queue_depth',
      help: 'Tasks waiting for a free slot',
      registers: [registry],
    }),
    taskDuration: new Histogram({
      name: 'ocr_engine_task_duration_seconds',
      help: 'Time from a task starting to its end',
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
      registers: [registry],
    }),
  };
}
