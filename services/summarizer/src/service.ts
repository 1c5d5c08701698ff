/**
 * Puts the summarizer together from its settings: metrics, the model client, the model tasks,
 * the app. No I/O until `start`, which probes the model server (only logged: a model server
 * that is down at start-up must not keep the service down).
 */
import {
  createConcurrencyLimit,
  createMetrics,
  createStructuredOutputModes,
  type Logger,
  type Service,
  type ServiceContext,
} from '@pelita/kit';
import { createApp } from './app';
import type { Settings } from './config';
import { createModelClient, type ModelClient } from './llm-client';
import { createModelStatus, probeModelContext } from './model-probe';
import { createModelTasks } from './model-tasks';
import { createSummarizerMetrics } from './summarizer-metrics';

export interface SummarizerService extends Service {
  client: ModelClient;
}

export function createSummarizerService(
  settings: Settings,
  logger: Logger,
  context: Partial<ServiceContext<Settings>> = {},
): SummarizerService {
  const metrics = createMetrics();
  const summarizerMetrics = createSummarizerMetrics(metrics.registry);
  // The model settings are the seed's secret-manager settings: taken as the store has them now.
  const latest = context.latestSettings ?? (() => settings);
  const client = createModelClient({
    endpoint: () => {
      const now = latest();
      return { baseUrl: now.BASE_URL_LOCAL, apiKey: now.API_KEY_LOCAL, model: now.MODEL_LOCAL };
    },
    timeoutMs: Math.round(settings.LLM_TIMEOUT * 1000),
    maxRetries: settings.LLM_MAX_RETRIES,
    logger,
    metrics: summarizerMetrics,
  });
  const modelStatus = createModelStatus(client, settings.UPSTREAM_CHECK_TIMEOUT_MS);
  const modes = createStructuredOutputModes({
    preferred: settings.LLM_STRUCTURED_OUTPUT,
    onDowngrade: (model, from, to) => {
      summarizerMetrics.formatDowngrades.inc({ from, to });
      logger.warn(
        { model, from, to },
        `the model server refused response_format ${from}; asking this model with ${to} from now on`,
      );
    },
  });
  const tasks = createModelTasks({
    client,
    limit: createConcurrencyLimit(settings.LLM_MAX_CONCURRENCY),
    logger,
    metrics: summarizerMetrics,
    modes,
    maxTokens: settings.LLM_MAX_TOKENS || undefined,
    answerRatio: settings.LLM_ANSWER_RATIO,
    // The setting wins; else what the model list said (known once /ready or the probe ran).
    contextLength: () =>
      settings.LLM_CONTEXT_LENGTH > 0 ? settings.LLM_CONTEXT_LENGTH : modelStatus.contextLength(),
  });
  const app = createApp({
    logger,
    settings,
    metrics,
    summarizerMetrics,
    client,
    tasks,
    modelStatus,
  });
  return {
    app,
    client,
    start: async () => {
      await probeModelContext(client, modelStatus, logger);
    },
    // Model calls end with their requests, which the kit drains before calling this.
    stop: () => Promise.resolve(),
  };
}
