/**
 * Runs the stand-in as a process (`make dev`, benchmarks). Settings from the environment; prints
 * one JSON line `{"port":N,"url":...}` once listening, and stops on SIGTERM/SIGINT.
 */
import { runMain } from '@pelita/kit';
import { z } from 'zod';
import { ruleFromJson, FaultRuleSchema } from './faults';
import { STRUCTURED_OUTPUT_SUPPORT } from './structured-output';
import { startLlmStub } from './stub-server';

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('127.0.0.1'),
  LLM_STUB_MODELS: z.string().default('pelita-stub'),
  /** 0 leaves `max_model_len` out of the model list. */
  LLM_STUB_MAX_MODEL_LEN: z.coerce.number().int().min(0).default(32_768),
  LLM_STUB_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  LLM_STUB_SUMMARY_MODE: z.enum(['shrink', 'echo']).default('shrink'),
  LLM_STUB_SHRINK_FRACTION: z.coerce.number().gt(0).max(1).default(0.25),
  LLM_STUB_INCLUDE_USAGE: z.enum(['true', 'false']).default('true'),
  LLM_STUB_API_KEY: z.string().optional(),
  LLM_STUB_SEED: z.coerce.number().int().default(1),
  /** What `response_format` does: honour, ignore, json_object (refuses json_schema), none. */
  LLM_STUB_STRUCTURED_OUTPUT: z.enum(STRUCTURED_OUTPUT_SUPPORT).default('honour'),
  /** `true`: requests that ask for JSON without a json_schema response_format get a 400. */
  LLM_STUB_REQUIRE_SCHEMA: z.enum(['true', 'false']).default('false'),
  /** JSON array of fault rules, as accepted by `PUT /_stub/faults`. */
  LLM_STUB_FAULTS: z.string().default('[]'),
});

async function main(): Promise<void> {
  const env = Env.parse(process.env);
  const faults = z.array(FaultRuleSchema).parse(JSON.parse(env.LLM_STUB_FAULTS));
  const stub = await startLlmStub({
    port: env.PORT,
    host: env.HOST,
    models: env.LLM_STUB_MODELS.split(',')
      .map((model) => model.trim())
      .filter(Boolean),
    maxModelLen: env.LLM_STUB_MAX_MODEL_LEN === 0 ? null : env.LLM_STUB_MAX_MODEL_LEN,
    latencyMs: env.LLM_STUB_LATENCY_MS,
    summaryMode: env.LLM_STUB_SUMMARY_MODE,
    shrinkFraction: env.LLM_STUB_SHRINK_FRACTION,
    includeUsage: env.LLM_STUB_INCLUDE_USAGE === 'true',
    ...(env.LLM_STUB_API_KEY ? { apiKey: env.LLM_STUB_API_KEY } : {}),
    seed: env.LLM_STUB_SEED,
    structuredOutput: env.LLM_STUB_STRUCTURED_OUTPUT,
    requireSchema: env.LLM_STUB_REQUIRE_SCHEMA === 'true',
    faults: faults.map(ruleFromJson),
  });
  process.stdout.write(`${JSON.stringify({ port: stub.port, url: stub.url })}\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void stub.close().then(() => process.exit(0));
    });
  }
}

runMain('llm-stub', main);
