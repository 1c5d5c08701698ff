/** Builds the summarizer's express app from its dependencies; no listening, no environment reads. */
import {
  createService,
  multipartUpload,
  redactString,
  requestWorkspace,
  type Logger,
  type Metrics,
} from '@pelita/kit';
import type { Express } from 'express';
import type { Settings } from './config';
import { entitiesFileOf } from './entity-extraction';
import type { ModelClient } from './llm-client';
import type { ModelStatus } from './model-probe';
import type { ModelTasks } from './model-tasks';
import type { SummarizerMetrics } from './summarizer-metrics';
import { extractEntitiesRoute } from './routes/extract-entities';
import { summarizeRoute } from './routes/summarize';
import { summarizeDocument } from './summary-pipeline';

export interface AppDeps {
  logger: Logger;
  settings: Settings;
  metrics: Metrics;
  summarizerMetrics: SummarizerMetrics;
  client: ModelClient;
  tasks: ModelTasks;
  modelStatus: ModelStatus;
}

export function createApp(deps: AppDeps): Express {
  const { logger, settings, client, tasks, metrics, summarizerMetrics, modelStatus } = deps;
  const upload = [
    requestWorkspace(settings.TEMP_DIR, logger),
    multipartUpload({ field: 'file', maxFiles: 1, maxBytes: settings.MAX_UPLOAD_BYTES }),
  ];
  const domain = { tasks, logger, metrics: summarizerMetrics };
  return createService({
    name: 'summarizer',
    description:
      'Hierarchical summary and named-entity recognition of text files over an OpenAI-compatible chat API',
    logger,
    metrics,
    bodyLimit: settings.BODY_LIMIT,
    // Liveness reads the last check; `/ready` and the start-up probe are what ask the model.
    health: () => ({
      status: 'ok',
      model_base_url: redactString(client.baseUrl),
      configured_model: client.model,
      upstream: modelStatus.last(),
    }),
    readiness: { llm: () => modelStatus.check() },
    routes: [
      summarizeRoute({
        upload,
        summarize: (text, params, request) =>
          summarizeDocument(
            text,
            params,
            {
              ...domain,
              logger: request.logger,
              maxReductionPasses: settings.MAX_REDUCTION_PASSES,
            },
            request.signal,
          ),
      }),
      extractEntitiesRoute({
        upload,
        extractEntities: (text, request) =>
          entitiesFileOf(text, { ...domain, logger: request.logger }, request.signal),
      }),
    ],
  });
}
