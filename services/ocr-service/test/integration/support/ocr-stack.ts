/**
 * Everything an OCR task touches, for the worker and end-to-end tests: the real local engine,
 * office converter and summarizer (on the LLM stand-in) in-process, the MinerU cloud double, and
 * the test servers' Redis, OpenSearch and MinIO under names of this run only (key prefix,
 * indexes, bucket), so test files never see each other's tasks.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { startMineruCloudStub, type MineruCloudStub } from '@pelita/mineru-cloud-stub';
import { createOcrEngineService, settingsSchema as ocrEngineSettings } from '@pelita/ocr-engine';
import {
  createOfficeConverterService,
  settingsSchema as converterSettings,
} from '@pelita/office-converter';
import { createSummarizerService, settingsSchema as summarizerSettings } from '@pelita/summarizer';
import { requireEnv } from '@pelita/testenv';
import { settingsSchema, type Settings } from '../../../src/config';
import type { SharedState } from '../../../src/shared-state';
import { timestampWithoutZone, type TaskRecord } from '../../../src/status/task-record';
import { stagedUploadKey } from '../../../src/storage/document-store';
import type { TaskJob } from '../../../src/tasks/task-job';

const ENV = requireEnv(
  'REDIS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);

export const CLOUD_KEY = 'cloud-key';

export interface OcrStack {
  /** Settings of the API and the workers of this stack (override per test with `settingsWith`). */
  settings: Settings;
  settingsWith(overrides: Record<string, string>): Settings;
  /** The same settings as environment variables, for worker processes. */
  env: Record<string, string>;
  cloud: MineruCloudStub;
  llm: LlmStub;
  dir: string;
  /** Logs of everything started in-process (a test reads what was logged). */
  logs: string[];
  close(): Promise<void>;
}

/** A logger whose lines land in `lines`. */
export function captureLogger(name: string, lines: string[]) {
  return createLogger({
    name,
    destination: new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
}

export async function startOcrStack(): Promise<OcrStack> {
  const logs: string[] = [];
  const quiet = captureLogger('dependencies', logs);
  const dir = await mkdtemp(join(tmpdir(), 'ocr-stack-'));
  const llm = await startLlmStub();
  const cloud = await startMineruCloudStub({ token: CLOUD_KEY, pageMs: 20 });
  const servers: RunningServer[] = [
    await serveInProcess(
      createOcrEngineService(
        loadConfig(ocrEngineSettings, { TASK_DIR: join(dir, 'engine') }),
        quiet,
      ),
      quiet,
    ),
    await serveInProcess(
      createOfficeConverterService(loadConfig(converterSettings, {}), quiet),
      quiet,
    ),
    await serveInProcess(
      createSummarizerService(
        loadConfig(summarizerSettings, { BASE_URL_LOCAL: llm.url, MODEL_LOCAL: 'pelita-stub' }),
        quiet,
      ),
      quiet,
    ),
  ];
  const [engine, converter, summarizer] = servers as [RunningServer, RunningServer, RunningServer];
  const run = randomBytes(4).toString('hex');
  const env: Record<string, string> = {
    REDIS_URL: ENV.REDIS_URL,
    REDIS_KEY_PREFIX: `test:ocr:${run}`,
    OPENSEARCH_URL: ENV.OPENSEARCH_URL,
    INDEX_PDF_PARSING_RESULTS: `pdf-parsing-results-${run}`,
    INDEX_DOCUMENT_SUMMARIZE: `summarize_document_${run}`,
    INDEX_DOCUMENT_SUMMARIZE_CHUNK: `summarize_document_chunk_${run}`,
    S3_ENDPOINT: ENV.S3_ENDPOINT,
    S3_ACCESS_KEY: ENV.S3_ACCESS_KEY,
    S3_SECRET_KEY: ENV.S3_SECRET_KEY,
    S3_REGION: ENV.S3_REGION,
    S3_BUCKET: `ocr-${run}`,
    OCR_ENGINE_LOCAL_URL: engine.url,
    OCR_ENGINE_CLOUD_URL: cloud.url,
    OCR_ENGINE_CLOUD_API_KEY: CLOUD_KEY,
    OCR_POLL_INTERVAL_MS: '50',
    URL_CONVERTER: converter.url,
    URL_SUMMARIZER: summarizer.url,
    // The cloud double and the test's file servers listen on loopback.
    ALLOWED_TARGETS: '127.0.0.1',
    CLAIM_IDLE_MS: '1500',
    TEMP_DIR: dir,
    WORK_DIR: dir,
    SHUTDOWN_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'debug',
  };
  const settingsWith = (overrides: Record<string, string>) =>
    loadConfig(settingsSchema, { ...env, ...overrides });
  return {
    settings: settingsWith({}),
    settingsWith,
    env,
    cloud,
    llm,
    dir,
    logs,
    async close() {
      for (const server of servers) await server.stop();
      await cloud.close();
      await llm.close();
      for (const index of [
        env.INDEX_PDF_PARSING_RESULTS,
        env.INDEX_DOCUMENT_SUMMARIZE,
        env.INDEX_DOCUMENT_SUMMARIZE_CHUNK,
      ])
        await fetch(`${ENV.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A task put in the queue as the API does: status record, staged uploads, queue message. */
export async function queueTask(
  state: SharedState,
  job: Omit<TaskJob, 'queued_at' | 'inputs'> & {
    inputs: Array<{ kind: 'url'; url: string } | { kind: 'file'; path: string; name: string }>;
  },
): Promise<void> {
  const created = await state.statuses.create({
    task_id: job.task_id,
    status: 'pending',
    stage: 'pending',
    progress_pct: 0,
    stage_detail: 'waiting in the queue',
    created_at: timestampWithoutZone(),
  });
  if (!created) throw new Error(`task ${job.task_id} exists`);
  const inputs: TaskJob['inputs'] = [];
  for (const [index, input] of job.inputs.entries()) {
    if (input.kind === 'url') {
      inputs.push(input);
      continue;
    }
    const key = stagedUploadKey(job.task_id, index);
    await state.documents.putFile(key, input.path, 'application/octet-stream');
    inputs.push({ kind: 'upload', key, name: input.name });
  }
  const full: TaskJob = { ...job, inputs, queued_at: new Date().toISOString() };
  const queued = await state.queue.enqueue(job.task_id, { job: JSON.stringify(full) });
  if (!queued.queued) throw new Error('the queue is full');
}

/** Polls the task's status record until it is done or failed; resolves with every record seen. */
export async function waitForEnd(
  state: SharedState,
  taskId: string,
  timeoutMs = 90_000,
): Promise<TaskRecord[]> {
  const seen: TaskRecord[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const record = await state.statuses.get(taskId);
    if (record && JSON.stringify(record) !== JSON.stringify(seen.at(-1))) seen.push(record);
    if (record?.status === 'done' || record?.status === 'failed') return seen;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} did not end: ${JSON.stringify(seen.at(-1))}`);
}

/** Resolves with the first defined answer of `probe`, asked every 100 ms. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
