/**
 * The worker end to end, against the real servers: Redis (queue, status, jobs), MinIO (staged
 * uploads, the stored PDF), OpenSearch (chunks, summaries), Pelita's OCR engine (local), the
 * MinerU cloud double (cloud), the office converter (LibreOffice) and the summarizer on the LLM
 * stand-in — every one in-process or on the test servers.
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { startMineruCloudStub, type MineruCloudStub } from '@pelita/mineru-cloud-stub';
import { createOcrEngineService, settingsSchema as engineSettings } from '@pelita/ocr-engine';
import {
  createOfficeConverterService,
  settingsSchema as converterSettings,
} from '@pelita/office-converter';
import { createSummarizerService, settingsSchema as summarizerSettings } from '@pelita/summarizer';
import { requireEnv, waitFor } from '@pelita/testenv';
import { Redis } from 'ioredis';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createConverterClient } from '../../src/conversion/converter-client';
import { createCloudEngine } from '../../src/engines/cloud-engine';
import { createLocalEngine } from '../../src/engines/local-engine';
import { createTaskQueue, type TaskQueue } from '../../src/queue/task-queue';
import { createChunkIndex } from '../../src/results/chunk-index';
import { createStatusStore, type StatusStore } from '../../src/status/status-store';
import { timestampWithoutZone } from '../../src/status/task-record';
import {
  createDocumentStore,
  stagedUploadKey,
  documentPdfKey,
} from '../../src/storage/document-store';
import { createSummarizerClient } from '../../src/summaries/summarizer-client';
import { createSummaryIndex } from '../../src/summaries/summary-index';
import { createJobStore, type Job } from '../../src/worker/job';
import { runTask, type PipelineDeps } from '../../src/worker/pipeline';
import { createWorkerLoop, type WorkerLoop } from '../../src/worker/worker-loop';

jest.setTimeout(240_000);
const run = promisify(execFile);
const env = requireEnv(
  'REDIS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);

async function textPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= pages; p += 1) {
    doc.addPage([595, 842]).drawText(`Section ${p}: the Jakarta office reports steady revenue.`, {
      x: 50,
      y: 760,
      size: 12,
      font,
    });
  }
  return Buffer.from(await doc.save());
}

describe('ocr worker', () => {
  const id = randomBytes(4).toString('hex');
  const prefix = `pelita:test:ocr-worker:${id}`;
  const names = {
    chunks: `pdf-parsing-results-${id}`,
    document: `summarize_document_${id}`,
    chunk: `summarize_document_chunk_${id}`,
  };
  const quiet = createLogger({ name: 'test', level: 'silent' });
  const redis = new Redis(env.REDIS_URL);
  const servers: RunningServer[] = [];
  const loops: WorkerLoop[] = [];
  let llm: LlmStub;
  let cloud: MineruCloudStub;
  let dir: string;
  let status: StatusStore;
  let deps: PipelineDeps;
  let queueOptions: Parameters<typeof createTaskQueue>[1];
  const stagesSeen = new Map<string, string[]>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ocr-worker-'));
    llm = await startLlmStub();
    cloud = await startMineruCloudStub({ token: 'k', pageMs: 10 });
    const engine = await serveInProcess(
      createOcrEngineService(loadConfig(engineSettings, { TASK_DIR: join(dir, 'engine') }), quiet),
      quiet,
    );
    const converter = await serveInProcess(
      createOfficeConverterService(loadConfig(converterSettings, {}), quiet),
      quiet,
    );
    const summarizer = await serveInProcess(
      createSummarizerService(
        loadConfig(summarizerSettings, { BASE_URL_LOCAL: llm.url, MODEL_LOCAL: 'pelita-stub' }),
        quiet,
      ),
      quiet,
    );
    servers.push(engine, converter, summarizer);
    const realStatus = createStatusStore(redis, { prefix, keep: 1000 });
    // Every stage a task goes through, in order (the store is the real one).
    status = {
      ...realStatus,
      update: (taskId, patch) => {
        if (patch.stage) stagesSeen.set(taskId, [...(stagesSeen.get(taskId) ?? []), patch.stage]);
        return realStatus.update(taskId, patch);
      },
    };
    const documents = createDocumentStore({
      endpoint: env.S3_ENDPOINT,
      region: env.S3_REGION,
      accessKeyId: env.S3_ACCESS_KEY,
      secretAccessKey: env.S3_SECRET_KEY,
      bucket: `ocr-worker-${id}`,
      forcePathStyle: true,
      publicBaseUrl: undefined,
    });
    await documents.ensureBucket();
    const chunks = createChunkIndex(env.OPENSEARCH_URL, names.chunks);
    await chunks.ensure();
    deps = {
      status,
      jobs: createJobStore(redis, prefix),
      documents,
      converter: createConverterClient({ baseUrl: converter.url, timeoutMs: 120_000 }),
      engines: {
        local: createLocalEngine({
          baseUrl: engine.url,
          pollIntervalMs: 50,
          maxPolls: 2000,
          requestTimeoutMs: 10_000,
        }),
        cloud: createCloudEngine({
          baseUrl: cloud.url,
          apiKey: 'k',
          pollIntervalMs: 20,
          maxPolls: 50,
          requestTimeoutMs: 5000,
          downloadTimeoutMs: 5000,
        }),
      },
      chunks,
      summarize: {
        summarizer: createSummarizerClient({
          baseUrl: summarizer.url,
          connectTimeoutMs: 10_000,
          readTimeoutMs: 600_000,
          retries: 3,
          backoffMs: 50,
        }),
        summaries: createSummaryIndex(env.OPENSEARCH_URL, {
          document: names.document,
          chunk: names.chunk,
        }),
      },
      logger: quiet,
      tempDir: dir,
    };
    queueOptions = {
      stream: `${prefix}:queue`,
      group: 'ocr-workers',
      maxLength: 100,
      claimIdleMs: 1000,
      maxDeliveries: 3,
    };
  });
  afterAll(async () => {
    for (const loop of loops) await loop.stop();
    for (const server of servers) await server.stop();
    await llm.close();
    await cloud.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    for (const index of Object.values(names))
      await fetch(`${env.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
    await rm(dir, { recursive: true, force: true });
  });

  const startWorker = (queue: TaskQueue, consumer: string, runner = runTask) => {
    const loop = createWorkerLoop({
      queue,
      status,
      consumer,
      concurrency: 1,
      logger: quiet,
      blockMs: 200,
      run: (taskId, age, signal) => runner(taskId, age, deps, signal),
    });
    loops.push(loop);
    loop.start();
    return loop;
  };
  /** What the API does: record, job, staged upload, then the queue. */
  const submit = async (
    queue: TaskQueue,
    taskId: string,
    file: { name: string; bytes: Buffer },
    processing: Job['processing'],
  ) => {
    await writeFile(join(dir, taskId), file.bytes);
    await deps.documents.putFile(
      stagedUploadKey(taskId, 0),
      join(dir, taskId),
      'application/octet-stream',
    );
    await status.create({
      task_id: taskId,
      status: 'pending',
      stage: 'pending',
      progress_pct: 0,
      stage_detail: 'queued',
      created_at: timestampWithoutZone(),
    });
    await deps.jobs.save({
      task_id: taskId,
      pdf_name: file.name,
      inputs: [{ key: stagedUploadKey(taskId, 0), name: file.name }],
      merge: false,
      processing,
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      metadata_document: { source: 'test' },
    });
    expect(await queue.enqueue(taskId)).toMatchObject({ queued: true });
  };
  const finished = async (taskId: string) => {
    const ended = async () => ['done', 'failed'].includes((await status.get(taskId))?.status ?? '');
    await waitFor(ended, { what: `task ${taskId} to end`, timeoutMs: 180_000, intervalMs: 100 });
    return (await status.get(taskId)) as NonNullable<Awaited<ReturnType<StatusStore['get']>>>;
  };
  const search = async (index: string, taskField: string, taskId: string) => {
    const res = await fetch(
      `${env.OPENSEARCH_URL}/${index}/_search?q=${taskField}:${taskId}&size=100`,
    );
    return ((await res.json()) as { hits: { hits: Array<{ _id: string }> } }).hits.hits
      .map((hit) => hit._id)
      .sort();
  };

  it('runs a 12-page PDF on the local engine through every stage to done: 3 chunks, the PDF stored, summaries written', async () => {
    const queue = createTaskQueue(redis, queueOptions);
    await queue.ensure();
    startWorker(queue, 'worker-local');
    await submit(queue, `local-${id}`, { name: 'annual.pdf', bytes: await textPdf(12) }, 'local');
    const record = await finished(`local-${id}`);
    expect(record).toMatchObject({ status: 'done', stage: 'done', progress_pct: 100 });
    expect(record.queue_wait_ms).toEqual(expect.any(Number));
    expect(record.processing_ms).toEqual(expect.any(Number));
    const stages = stagesSeen.get(`local-${id}`) ?? [];
    expect([...new Set(stages)]).toEqual([
      'queued',
      'uploading',
      'ocr_polling',
      'downloading_result',
      'uploading_pdf',
      'indexing',
      'summarizing',
      'done',
    ]);

    expect(await search(names.chunks, 'pdf_id', `local-${id}`)).toEqual(
      [1, 2, 3].map((n) => `local-${id}_chunk_${n}`),
    );
    const stored = join(dir, 'stored.pdf');
    await deps.documents.getFile(documentPdfKey(`local-${id}`), stored);
    expect((await readFile(stored)).subarray(0, 5).toString()).toBe('%PDF-');
    await waitFor(
      async () => (await search(names.document, 'task_id', `local-${id}`)).length === 1,
      { what: 'the document summary' },
    );
    await expect(
      deps.documents.getFile(stagedUploadKey(`local-${id}`, 0), join(dir, 'x')),
    ).rejects.toThrow();
  });

  it('converts a .docx first and runs it on the cloud engine', async () => {
    const queue = createTaskQueue(redis, queueOptions);
    startWorker(queue, 'worker-cloud');
    await writeFile(join(dir, 'brief.txt'), 'Brief about the Surabaya warehouse');
    await run('soffice', [
      '--headless',
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--convert-to',
      'docx:MS Word 2007 XML',
      '--outdir',
      dir,
      join(dir, 'brief.txt'),
    ]);
    await submit(
      queue,
      `cloud-${id}`,
      { name: 'brief.docx', bytes: await readFile(join(dir, 'brief.docx')) },
      'cloud',
    );
    expect(await finished(`cloud-${id}`)).toMatchObject({ status: 'done' });
    const chunk = (await (
      await fetch(`${env.OPENSEARCH_URL}/${names.chunks}/_doc/cloud-${id}_chunk_1`)
    ).json()) as { _source: { content_list: Array<{ content: string }> } };
    expect(chunk._source.content_list.map((item) => item.content).join(' ')).toContain(
      'Surabaya warehouse',
    );
  });

  it('fails a task whose engine never finishes: Task timeout, 504', async () => {
    cloud.setFaults([{ match: /./, fault: { kind: 'never-finish' } }]);
    try {
      const queue = createTaskQueue(redis, queueOptions);
      startWorker(queue, 'worker-stuck');
      await submit(queue, `stuck-${id}`, { name: 'stuck.pdf', bytes: await textPdf(2) }, 'cloud');
      expect(await finished(`stuck-${id}`)).toMatchObject({
        status: 'failed',
        error: 'Task timeout',
        error_code: 504,
      });
    } finally {
      cloud.setFaults([]);
    }
  });

  it('finishes, once, a task whose worker died in the middle of it', async () => {
    const taskId = `orphan-${id}`;
    // Only worker A may take it: the workers of the other tests stop first.
    for (const loop of loops.splice(0)) await loop.stop();
    // Worker A takes the task and dies: it never acknowledges nor heartbeats again.
    const deadRedis = new Redis(env.REDIS_URL);
    const dead = createTaskQueue(deadRedis, queueOptions);
    let taken: () => void = () => undefined;
    const tookIt = new Promise<void>((resolve) => (taken = resolve));
    const frozen = createWorkerLoop({
      queue: dead,
      status,
      consumer: 'worker-dies',
      concurrency: 1,
      logger: quiet,
      blockMs: 200,
      run: async (id) => {
        if (id === taskId) {
          taken();
          deadRedis.disconnect(); // no heartbeat, no acknowledgement: as after a SIGKILL
          await new Promise(() => undefined);
        }
      },
    });
    frozen.start();
    await submit(
      createTaskQueue(redis, queueOptions),
      taskId,
      { name: 'orphan.pdf', bytes: await textPdf(7) },
      'local',
    );
    await tookIt;
    // Worker B claims it once it has been idle for claimIdleMs, and finishes it.
    startWorker(createTaskQueue(redis, queueOptions), 'worker-b');
    expect(await finished(taskId)).toMatchObject({ status: 'done' });
    expect(await search(names.chunks, 'pdf_id', taskId)).toEqual([
      `${taskId}_chunk_1`,
      `${taskId}_chunk_2`,
    ]);
  });
});
