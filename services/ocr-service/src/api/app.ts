/** Builds the OCR task API's express app from its dependencies; no listening, no environment reads. */
import { createService, type Logger, type Metrics, type ReadinessCheck } from '@pelita/kit';
import type { Express } from 'express';
import { documentRoutes, type DocumentRoutesDeps } from './routes/documents';
import { healthRoute, type HealthRouteDeps } from './routes/health';
import { taskRoutes, type TaskRoutesDeps } from './routes/tasks';

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  bodyLimit: string;
  tasks: TaskRoutesDeps;
  documents: DocumentRoutesDeps;
  health: HealthRouteDeps;
  readiness: Record<string, ReadinessCheck>;
}

export function createApp({ tasks, documents, health, ...service }: AppDeps): Express {
  return createService({
    name: 'ocr-service',
    description:
      'OCR orchestration (seed 002 A): documents in as tasks on a durable queue, run by the OCR ' +
      'workers; status from any replica; OCR results read back from the search index.',
    ...service,
    routes: [...taskRoutes(tasks), ...documentRoutes(documents), healthRoute(health)],
  });
}
