/**
 * Ingestion through the whole chain: documents per minute uploaded to the core backend and
 * followed to `done` with their summary — ocr-service task API and two OCR workers (processes),
 * the MinerU cloud double at a fixed latency a page, the summarizer on the LLM stand-in, chunks
 * embedded by the stand-in and indexed in OpenSearch, originals kept in MinIO. The baseline is
 * the same chain without the core backend: the same number of tasks sent straight to the
 * ocr-service and waited for until their summary is in the summary index. The ratio is the
 * share of the OCR chain's throughput the core backend keeps (target: at least 0.8; its
 * follower polls every OCR_POLL_INTERVAL_MS, which the last document waits for at worst).
 *
 * The core backend runs in this process (`core-backend.ts`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLlmStub } from '@pelita/llm-stub';
import { startMineruCloudStub } from '@pelita/mineru-cloud-stub';
import { requireEnv, waitFor } from '@pelita/testenv';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { json, startBenchCore, type BenchCore } from './core-backend';
import { startService, type StartedService } from './process';
import { report, table } from './report';

const SERVICES = join(__dirname, '..', '..', '..', 'services');
const PAGES = 5;
const PAGE_MS = 100;
const WORKERS = 2;
const DOCUMENTS = 30;
const KEY = 'bench-key';

async function pdf(seed: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= PAGES; page += 1) {
    doc
      .addPage([595, 842])
      .drawText(`Report ${seed}, page ${page}: river levels`, { x: 60, y: 760, font });
  }
  return Buffer.from(await doc.save());
}

const form = (file: Buffer, name: string, fields: Record<string, string>) => {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(file)]), name);
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  return body;
};

/** Documents a minute straight through the ocr-service, summaries included. */
async function direct(apiUrl: string, summaryIndexUrl: string, files: Buffer[]): Promise<number> {
  const begin = Date.now();
  const ids: string[] = [];
  for (const [i, file] of files.entries()) {
    const task = await json<{ task_id: string }>(
      fetch(`${apiUrl}/api/v1/pdfs?processing=cloud`, {
        method: 'POST',
        body: form(file, `direct-${i}.pdf`, {}),
      }),
      'POST /api/v1/pdfs',
    );
    ids.push(task.task_id);
  }
  const waiting = new Set(ids);
  await waitFor(
    async () => {
      for (const id of [...waiting]) {
        const status = await json<{ status: string }>(
          fetch(`${apiUrl}/api/v1/tasks/${id}/status`),
          'task status',
        );
        if (status.status === 'failed') throw new Error(`task ${id} failed`);
        if (status.status !== 'done') continue;
        if ((await fetch(`${summaryIndexUrl}/_doc/${id}`)).ok) waiting.delete(id);
      }
      return waiting.size === 0;
    },
    {
      what: `${files.length} tasks straight through the ocr-service`,
      timeoutMs: 600_000,
      intervalMs: 100,
    },
  );
  return (files.length / (Date.now() - begin)) * 60_000;
}

/** Documents a minute uploaded to the core backend and followed to done with a summary. */
async function throughCore(core: BenchCore, workspaceId: string, files: Buffer[]): Promise<number> {
  const headers = core.auth;
  const coreUrl = core.url;
  const begin = Date.now();
  for (const [i, file] of files.entries()) {
    await json(
      fetch(`${coreUrl}/api/workspaces/${workspaceId}/documents`, {
        method: 'POST',
        headers,
        body: form(file, `core-${i}.pdf`, { processing: 'cloud' }),
      }),
      'POST documents',
    );
  }
  await waitFor(
    async () => {
      const page = await json<{ data: Array<{ state: string; summary_state: string }> }>(
        fetch(`${coreUrl}/api/workspaces/${workspaceId}/documents?limit=200`, { headers }),
        'GET documents',
      );
      if (page.data.some((d) => d.state === 'failed')) throw new Error('a document failed');
      const finished = page.data.filter((d) => d.state === 'done' && d.summary_state === 'done');
      return finished.length === files.length;
    },
    {
      what: `${files.length} documents through the core backend`,
      timeoutMs: 600_000,
      intervalMs: 100,
    },
  );
  return (files.length / (Date.now() - begin)) * 60_000;
}

export async function run(): Promise<void> {
  const deps = requireEnv(
    'REDIS_URL',
    'OPENSEARCH_URL',
    'S3_ENDPOINT',
    'S3_ACCESS_KEY',
    'S3_SECRET_KEY',
    'S3_REGION',
  );
  const run = randomBytes(4).toString('hex');
  const dir = await mkdtemp(join(tmpdir(), 'bench-core-'));
  const llm = await startLlmStub({ latencyMs: 0 });
  const cloud = await startMineruCloudStub({ token: KEY, pageMs: PAGE_MS });
  const indexes = {
    INDEX_PDF_PARSING_RESULTS: `bench-core-results-${run}`,
    INDEX_DOCUMENT_SUMMARIZE: `bench-core-summary-${run}`,
    INDEX_DOCUMENT_SUMMARIZE_CHUNK: `bench-core-summary-chunk-${run}`,
  };
  const s3 = {
    S3_ENDPOINT: deps.S3_ENDPOINT,
    S3_ACCESS_KEY: deps.S3_ACCESS_KEY,
    S3_SECRET_KEY: deps.S3_SECRET_KEY,
    S3_REGION: deps.S3_REGION,
    S3_BUCKET: `bench-core-${run}`,
  };
  const started: StartedService[] = [];
  let core: BenchCore | undefined;
  try {
    const summarizer = await startService(join(SERVICES, 'summarizer', 'dist', 'main.js'), {
      env: { BASE_URL_LOCAL: llm.url, MODEL_LOCAL: 'pelita-stub', LOG_LEVEL: 'warn' },
    });
    started.push(summarizer);
    const ocrEnv = {
      REDIS_URL: deps.REDIS_URL,
      OPENSEARCH_URL: deps.OPENSEARCH_URL,
      ...s3,
      ...indexes,
      REDIS_KEY_PREFIX: `bench:core:${run}`,
      OCR_ENGINE_CLOUD_URL: cloud.url,
      OCR_ENGINE_CLOUD_API_KEY: KEY,
      OCR_POLL_INTERVAL_MS: '100',
      URL_SUMMARIZER: summarizer.url,
      ALLOWED_TARGETS: '127.0.0.1',
      TEMP_DIR: dir,
      WORK_DIR: dir,
      LOG_LEVEL: 'warn',
    };
    const ocrDist = join(SERVICES, 'ocr-service', 'dist');
    const api = await startService(join(ocrDist, 'main.js'), { env: ocrEnv, readyPath: '/ready' });
    started.push(api);
    for (let i = 0; i < WORKERS; i += 1) {
      started.push(
        await startService(join(ocrDist, 'worker.js'), {
          env: { ...ocrEnv, WORKER_NAME: `bench-core-${i}` },
          readyPath: '/ready',
        }),
      );
    }

    core = await startBenchCore({
      URL_OCR: api.url,
      ...indexes,
      ...s3,
      TEMP_DIR: dir,
      BASE_URL_LOCAL: llm.url,
      MODEL_LOCAL: 'pelita-stub',
      EMBEDDINGS_MODEL: 'pelita-stub',
    });

    const files = await Promise.all(Array.from({ length: DOCUMENTS }, (_, i) => pdf(i)));
    const summaryIndexUrl = `${deps.OPENSEARCH_URL}/${indexes.INDEX_DOCUMENT_SUMMARIZE}`;
    // Warm-up: one document each way (connections, index creation, first compilations).
    await direct(api.url, summaryIndexUrl, files.slice(0, 1));
    await throughCore(core, await core.workspace('warm-up'), files.slice(0, 1));

    const straight = await direct(api.url, summaryIndexUrl, files);
    const viaCore = await throughCore(core, await core.workspace('bench'), files);
    report(
      `${DOCUMENTS} PDFs of ${PAGES} pages, ${WORKERS} OCR workers, cloud engine double at ` +
        `${PAGE_MS} ms a page, summaries by the summarizer on the LLM stand-in, ` +
        `core follower every ${core.settings.OCR_POLL_INTERVAL_MS} ms`,
    );
    table([
      {
        path: 'core backend → ocr-service → worker → summarizer → knowledge index',
        'documents/min': viaCore.toFixed(1),
        'baseline documents/min': straight.toFixed(1),
        ratio: (viaCore / straight).toFixed(2),
        target: '>= 0.80',
      },
    ]);
  } finally {
    await core?.stop();
    for (const service of started.reverse()) await service.stop();
    await cloud.close();
    await llm.close();
    for (const index of Object.values(indexes)) {
      await fetch(`${deps.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
    }
    await rm(dir, { recursive: true, force: true });
  }
}
