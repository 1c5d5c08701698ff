/** Builds the summarizer's express app from its dependencies; no listening, no environment reads. */
import { createService, redactString, type Logger } from '@pelita/kit';
import type { Express } from 'express';
import type { Settings } from './config';
import type { Dependencies } from './dependencies';
import { entitiesFileOf } from './entity-extraction';
import { upstreamStatus } from './model-probe';
import { extractEntitiesRoute } from './routes/extract-entities';
import { summarizeRoute } from './routes/summarize';
import { summarizeDocument } from './summary-pipeline';
import { requestWorkspace, singleFileUpload } from './upload';

export interface AppDeps extends Dependencies {
  logger: Logger;
  settings: Settings;
}

export function createApp(deps: AppDeps): Express {
  const { logger, settings, client, tasks, metrics, summarizerMetrics } = deps;
  const upload = [
    requestWorkspace(settings.TEMP_DIR, logger),
    singleFileUpload({ maxBytes: settings.MAX_UPLOAD_BYTES }),
  ];
  const domain = { tasks, logger, metrics: summarizerMetrics };
  return createService({
    name: 'summarizer',
    description:
      'Hierarchical summary and named-entity recognition of text files over an OpenAI-compatible chat API',
    logger,
    metrics,
    bodyLimit: settings.BODY_LIMIT,
    health: async () => ({
      status: 'ok',
      model_base_url: redactString(client.baseUrl),
      configured_model: client.model,
      upstream: await upstreamStatus(client, settings.UPSTREAM_CHECK_TIMEOUT_MS),
    }),
    readiness: { llm: () => client.listModels(settings.UPSTREAM_CHECK_TIMEOUT_MS) },
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
