/** Builds what the app needs from the settings: metrics, the model client, the model tasks. */
import { createMetrics, type Logger, type Metrics } from '@pelita/kit';
import { createConcurrencyLimit } from './concurrency-limit';
import type { Settings } from './config';
import { createModelClient, type ModelClient } from './llm-client';
import { createModelTasks, type ModelTasks } from './model-tasks';
import { createSummarizerMetrics, type SummarizerMetrics } from './summarizer-metrics';

export interface Dependencies {
  metrics: Metrics;
  summarizerMetrics: SummarizerMetrics;
  client: ModelClient;
  tasks: ModelTasks;
}

/** No I/O happens here: the client connects on its first call. */
export function createDependencies(settings: Settings, logger: Logger): Dependencies {
  const metrics = createMetrics();
  const summarizerMetrics = createSummarizerMetrics(metrics.registry);
  const client = createModelClient({
    baseUrl: settings.BASE_URL_LOCAL,
    apiKey: settings.API_KEY_LOCAL,
    model: settings.MODEL_LOCAL,
    timeoutMs: Math.round(settings.LLM_TIMEOUT * 1000),
    maxRetries: settings.LLM_MAX_RETRIES,
    logger,
    metrics: summarizerMetrics,
  });
  const tasks = createModelTasks({
    client,
    limit: createConcurrencyLimit(settings.LLM_MAX_CONCURRENCY),
    logger,
    metrics: summarizerMetrics,
  });
  return { metrics, summarizerMetrics, client, tasks };
}
