/**
 * Summaries do not hold up OCR: one worker process (`WORKER_CONCURRENCY=1`,
 * `SUMMARY_CONCURRENCY=1`) and ten documents through the task API, against the MinerU cloud
 * double, with a summarizer stand-in that takes SUMMARY_MS per summary. Measured: the time for
 * all ten to reach OCR `done` with summaries on, against the same run with summaries off (no
 * `URL_SUMMARIZER`) — the ratio's target is about 1.0 — and when the last summary is done.
 * Before summaries had their own pool, each ran in the OCR slot after `done`, so the tenth
 * document waited for nine summaries (about 9 × SUMMARY_MS more).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { startMineruCloudStub } from '@pelita/mineru-cloud-stub';
import { waitFor } from '@pelita/testenv';
import { benchmarkPdf, ocrServiceEnv, submitPdfs } from './ocr-tasks';
import { startService, type StartedService } from './process';
import { report, table } from './report';

const SERVICE = join(__dirname, '..', '..', '..', 'services', 'ocr-service', 'dist');
const DOCUMENTS = 10;
const PAGES = 2;
const PAGE_MS = 200;
/** The summarizer stand-in's time per summary (a small model on a CPU is slower still). */
const SUMMARY_MS = 2500;
const KEY = 'bench-key';

interface TaskStatus {
  status: string;
  finished_at?: string;
  summary?: { status: string; finished_at?: string };
}

/** Answers `POST /summarize` after SUMMARY_MS with a one-chunk summary, as the summarizer would. */
async function slowSummarizer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            total_initial_chunks: 1,
            summarize_chunk: [
              {
                chunk_index: 0,
                original_tokens: 10,
                summary_tokens: 5,
                summary: 'A benchmark page.',
                key_points: [],
                topics: [],
                named_entities: {},
              },
            ],
            final_summary: {
              summary: 'A benchmark document.',
              key_points_model: [],
              topics_aggregated: [],
              named_entities: {},
            },
            final_summary_tokens: 4,
          }),
        );
      }, SUMMARY_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

/** Seconds until all documents are OCR `done`, and until all summaries are (when on). */
async function runOnce(
  env: Record<string, string>,
  file: Buffer,
): Promise<{ ocrSeconds: number; summariesSeconds: number | undefined }> {
  const run = randomBytes(4).toString('hex');
  const runEnv = {
    ...env,
    REDIS_KEY_PREFIX: `bench:ocr:${run}`,
    INDEX_PDF_PARSING_RESULTS: `bench-ocr-${run}`,
    INDEX_DOCUMENT_SUMMARIZE: `bench-ocr-summary-${run}`,
    INDEX_DOCUMENT_SUMMARIZE_CHUNK: `bench-ocr-summary-chunk-${run}`,
  };
  const started: StartedService[] = [];
  try {
    const api = await startService(join(SERVICE, 'main.js'), { env: runEnv, readyPath: '/ready' });
    started.push(api);
    started.push(
      await startService(join(SERVICE, 'worker.js'), {
        env: {
          ...runEnv,
          WORKER_NAME: 'bench-0',
          WORKER_CONCURRENCY: '1',
          SUMMARY_CONCURRENCY: '1',
        },
        readyPath: '/ready',
      }),
    );
    const begin = Date.now();
    const ids = await submitPdfs(api.url, file, DOCUMENTS);
    const statuses = () =>
      Promise.all(
        ids.map(async (id) => {
          const res = await fetch(`${api.url}/api/v1/tasks/${id}/status`);
          return (await res.json()) as TaskStatus;
        }),
      );
    let ocrSeconds = 0;
    await waitFor(
      async () => {
        const all = await statuses();
        if (all.some((task) => task.status === 'failed'))
          throw new Error('a benchmark task failed');
        ocrSeconds = (Date.now() - begin) / 1000;
        return all.every((task) => task.status === 'done');
      },
      { what: `${DOCUMENTS} OCR tasks`, timeoutMs: 600_000, intervalMs: 50 },
    );
    if (!env.URL_SUMMARIZER) return { ocrSeconds, summariesSeconds: undefined };
    let summariesSeconds = 0;
    await waitFor(
      async () => {
        const all = await statuses();
        if (all.some((task) => task.summary?.status === 'failed'))
          throw new Error('a benchmark summary failed');
        summariesSeconds = (Date.now() - begin) / 1000;
        return all.every((task) => task.summary?.status === 'done');
      },
      { what: `${DOCUMENTS} summaries`, timeoutMs: 600_000, intervalMs: 100 },
    );
    return { ocrSeconds, summariesSeconds };
  } finally {
    for (const service of started.reverse()) await service.stop();
    for (const index of [
      runEnv.INDEX_PDF_PARSING_RESULTS,
      runEnv.INDEX_DOCUMENT_SUMMARIZE,
      runEnv.INDEX_DOCUMENT_SUMMARIZE_CHUNK,
    ])
      await fetch(`${env.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
  }
}

export async function run(): Promise<void> {
  const cloud = await startMineruCloudStub({ token: KEY, pageMs: PAGE_MS });
  const summarizer = await slowSummarizer();
  try {
    const env = ocrServiceEnv(cloud.url, KEY);
    const file = await benchmarkPdf(PAGES);
    const off = await runOnce(env, file);
    const on = await runOnce({ ...env, URL_SUMMARIZER: summarizer.url }, file);
    report(
      `${DOCUMENTS} documents of ${PAGES} pages, one worker (one OCR slot, one summary slot), cloud double at ${PAGE_MS} ms a page, summarizer stand-in at ${SUMMARY_MS} ms a summary`,
    );
    table([
      {
        summaries: 'off',
        'all OCR done (s)': off.ocrSeconds.toFixed(1),
        'all summaries done (s)': '-',
        'ratio to off': '1.00',
        target: '',
      },
      {
        summaries: 'on',
        'all OCR done (s)': on.ocrSeconds.toFixed(1),
        'all summaries done (s)': (on.summariesSeconds ?? 0).toFixed(1),
        'ratio to off': (on.ocrSeconds / off.ocrSeconds).toFixed(2),
        target: '~1.00',
      },
    ]);
  } finally {
    await cloud.close();
    summarizer.server.close();
  }
}
