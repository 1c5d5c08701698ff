/**
 * Runs the double as a process (`make dev`, benchmarks). Settings from the environment; prints
 * one JSON line `{"port":N,"url":...}` once listening, and stops on SIGTERM/SIGINT.
 */
import { z } from 'zod';
import { runMain } from '@pelita/kit';
import { FaultRuleSchema, ruleFromJson } from './faults';
import { startMineruCloudStub } from './stub-server';

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8010),
  HOST: z.string().default('127.0.0.1'),
  /** The origin written into upload and result URLs, when clients reach the double by another name. */
  MINERU_STUB_PUBLIC_ORIGIN: z.url().optional(),
  MINERU_STUB_TOKEN: z.string().min(1).optional(),
  MINERU_STUB_QUEUE_MS: z.coerce.number().int().min(0).default(20),
  MINERU_STUB_PAGE_MS: z.coerce.number().int().min(0).default(50),
  MINERU_STUB_CONVERTING_MS: z.coerce.number().int().min(0).default(20),
  MINERU_STUB_MAX_PAGES: z.coerce.number().int().min(1).default(600),
  /** JSON array of fault rules, as accepted by `PUT /_stub/faults`. */
  MINERU_STUB_FAULTS: z.string().default('[]'),
});

runMain('mineru-cloud-stub', async () => {
  const env = Env.parse(process.env);
  const faults = z.array(FaultRuleSchema).parse(JSON.parse(env.MINERU_STUB_FAULTS));
  const stub = await startMineruCloudStub({
    port: env.PORT,
    host: env.HOST,
    ...(env.MINERU_STUB_PUBLIC_ORIGIN ? { publicOrigin: env.MINERU_STUB_PUBLIC_ORIGIN } : {}),
    ...(env.MINERU_STUB_TOKEN ? { token: env.MINERU_STUB_TOKEN } : {}),
    queueMs: env.MINERU_STUB_QUEUE_MS,
    pageMs: env.MINERU_STUB_PAGE_MS,
    convertingMs: env.MINERU_STUB_CONVERTING_MS,
    maxPages: env.MINERU_STUB_MAX_PAGES,
    faults: faults.map(ruleFromJson),
  });
  process.stdout.write(`${JSON.stringify({ port: stub.port, url: stub.url })}\n`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void stub.close().then(() => process.exit(0));
    });
  }
});
