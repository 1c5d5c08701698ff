/**
 * What the model server says about itself: its last known status (the `upstream` part of
 * `/health`), and the start-up probe that says when the default chunk would fill more than 60%
 * of the model's context, and so is cut to fit.
 */
import { redactString, type Logger } from '@pelita/kit';
import type { ModelClient, ModelInfo } from './llm-client';
import { describeModelError } from '@pelita/kit';
import { DEFAULT_CHUNK_SIZE } from './chunker';
import { CHUNK_CONTEXT_SHARE, chunkSizeFor, TOKENS_PER_WORD } from './token-estimate';

export interface UpstreamStatus {
  reachable: boolean;
  models: string[];
  error: string | null;
}

/**
 * The model list, asked by `/ready` and the start-up probe, remembered for `/health`: liveness
 * never waits on the model server (a slow model must not get pods restarted), and probes do
 * not multiply the calls it receives.
 */
export interface ModelStatus {
  /** Asks the model server for its model list and remembers the outcome. */
  check(): Promise<ModelInfo[]>;
  /** The outcome of the last check. */
  last(): UpstreamStatus;
  /** The configured model's context length, as the last successful check reported it. */
  contextLength(): number | undefined;
}

export function createModelStatus(client: ModelClient, timeoutMs: number): ModelStatus {
  let last: UpstreamStatus = { reachable: false, models: [], error: 'not checked yet' };
  let contextLength: number | undefined;
  return {
    async check() {
      try {
        const models = await client.listModels(timeoutMs);
        last = { reachable: true, models: models.map((model) => model.id), error: null };
        contextLength = models.find((model) => model.id === client.model)?.maxModelLength;
        return models;
      } catch (err) {
        last = { reachable: false, models: [], error: redactString(describeModelError(err)) };
        throw err;
      }
    },
    last: () => last,
    contextLength: () => contextLength,
  };
}

export type ProbeResult =
  | { outcome: 'fits' | 'too_large'; maxModelLength: number; estimatedTokens: number }
  | { outcome: 'no_length' | 'failed' };

/** Logs its outcome and never throws: a failed probe does not stop start-up. */
export async function probeModelContext(
  client: Pick<ModelClient, 'baseUrl' | 'model'>,
  status: ModelStatus,
  logger: Logger,
): Promise<ProbeResult> {
  let models;
  try {
    models = await status.check();
  } catch (err) {
    logger.warn(
      { modelBaseUrl: redactString(client.baseUrl) },
      `start-up probe: model list unavailable (${describeModelError(err)}); starting anyway`,
    );
    return { outcome: 'failed' };
  }
  const model = models.find((entry) => entry.id === client.model);
  if (!model) {
    logger.warn(
      { configuredModel: client.model, models: models.map((entry) => entry.id) },
      'start-up probe: the configured model is not in the model list',
    );
  }
  const maxModelLength = (model ?? models[0])?.maxModelLength;
  if (maxModelLength === undefined) {
    logger.info(
      { configuredModel: client.model },
      'start-up probe: the model server reports no maximum model length',
    );
    return { outcome: 'no_length' };
  }
  const estimatedTokens = Math.ceil(DEFAULT_CHUNK_SIZE * TOKENS_PER_WORD);
  // The requests' own rule: the probe says what they will do.
  const { chunkSize, cutFrom } = chunkSizeFor(DEFAULT_CHUNK_SIZE, maxModelLength);
  if (cutFrom !== undefined) {
    logger.warn(
      {
        configuredModel: client.model,
        maxModelLength,
        estimatedTokens,
        advisedChunkSize: chunkSize,
      },
      `start-up probe: a default chunk (${DEFAULT_CHUNK_SIZE} words, about ${estimatedTokens} tokens) ` +
        `exceeds ${CHUNK_CONTEXT_SHARE * 100}% of the model's maximum length ${maxModelLength}; ` +
        `chunks are cut to ${chunkSize} words, which makes more model calls per document`,
    );
    return { outcome: 'too_large', maxModelLength, estimatedTokens };
  }
  logger.info(
    { configuredModel: client.model, maxModelLength, estimatedTokens },
    'start-up probe: the default chunk fits the model',
  );
  return { outcome: 'fits', maxModelLength, estimatedTokens };
}
