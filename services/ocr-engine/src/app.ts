/** Builds the OCR engine's express app from its dependencies; no listening, no environment reads. */
import { createService, type Logger, type Metrics, type RouteDefinition } from '@pelita/kit';
import type { Express } from 'express';
import { taskRoutes, type TaskRoutesDeps } from './routes/tasks';

export interface AppDeps extends TaskRoutesDeps {
  logger: Logger;
  metrics: Metrics;
}

export function createApp(deps: AppDeps): Express {
  const routes: RouteDefinition[] = taskRoutes(deps);
  return createService({
    name: 'ocr-engine',
    version: deps.version,
    description:
      "Pelita's local OCR engine: PDF text layers through poppler, scanned pages and images " +
      'through tesseract, behind the self-hosted MinerU task API (`POST /tasks`, ' +
      '`GET /tasks/{id}`, `GET /tasks/{id}/result`).',
    logger: deps.logger,
    metrics: deps.metrics,
    // MinerU's health shape: the queue at a glance.
    health: () => ({ status: 'healthy', version: deps.version, ...deps.runner.stats() }),
    routes,
  });
}
