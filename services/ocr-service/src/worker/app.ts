/**
 * Builds the OCR worker's express app: the kit's operational endpoints only (`/health`, `/ready`,
 * `/metrics`); the work comes from the queue. No listening, no environment reads.
 */
import { createService, type Logger, type Metrics, type ReadinessCheck } from '@pelita/kit';
import type { Express } from 'express';

export interface WorkerAppDeps {
  logger: Logger;
  metrics: Metrics;
  readiness: Record<string, ReadinessCheck>;
}

export function createWorkerApp(deps: WorkerAppDeps): Express {
  return createService({
    name: 'ocr-worker',
    description: 'OCR worker: takes tasks from the queue and runs the document pipeline',
    ...deps,
    routes: [],
  });
}
