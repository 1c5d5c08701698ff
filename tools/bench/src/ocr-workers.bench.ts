/**
 * OCR workers scale out: tasks per minute with 1, 2 and 4 worker processes (`dist/worker.js`,
 * one task at a time each) behind one task API (`dist/main.js`), against the MinerU cloud double
 * at a fixed engine latency. The baseline is linear scaling of the one-worker rate; the target
 * is at least 0.9 of it. Redis, OpenSearch and MinIO are the test servers; no summarizer (its
 * model's latency is not the worker's).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startMineruCloudStub } from '@pelita/mineru-cloud-stub';
import { waitFor } from '@pelita/testenv';
import { benchmarkPdf, ocrServiceEnv, submitPdfs } from './ocr-tasks';
import { startService, type StartedService } from './process';
import { report, table } from './report';

const SERVICE = join(__dirname, '..', '..', '..', 'services', 'ocr-service', 'dist');
const PAGES = 5;
/** Engine latency per page: a task takes about PAGES × PAGE_MS in the engine. */
const PAGE_MS = 200;
const TASKS_PER_WORKER = 8;
const KEY = 'bench-key';

/** Minutes-rate of `tasks` tasks through `workers` worker processes. */
async function tasksPerMinute(
  workers: number,
  env: Record<string, string>,
  file: Buffer,
): Promise<number> {
  const run = randomBytes(4).toString('hex');
  const runEnv = {
    ...env,
    REDIS_KEY_PREFIX: `bench:ocr:${run}`,
    INDEX_PDF_PARSING_RESULTS: `bench-ocr-${run}`,
  };
  const started: StartedService[] = [];
  try {
    const api = await startService(join(SERVICE, 'main.js'), { env: runEnv, readyPath: '/ready' });
    started.push(api);
    for (let i = 0; i < workers; i += 1)
      started.push(
        await startService(join(SERVICE, 'worker.js'), {
          env: { ...runEnv, WORKER_NAME: `bench-${i}` },
          readyPath: '/ready',
        }),
      );
    const tasks = workers * TASKS_PER_WORKER;
    const begin = Date.now();
    const ids = await submitPdfs(api.url, file, tasks);
    await waitFor(
      async () => {
        const statuses = await Promise.all(
          ids.map(async (id) => {
            const res = await fetch(`${api.url}/api/v1/tasks/${id}/status`);
            return ((await res.json()) as { status: string }).status;
          }),
        );
        if (statuses.includes('failed')) throw new Error('a benchmark task failed');
        return statuses.every((status) => status === 'done');
      },
      { what: `${tasks} OCR tasks`, timeoutMs: 600_000, intervalMs: 100 },
    );
    return (tasks / (Date.now() - begin)) * 60_000;
  } finally {
    for (const service of started.reverse()) await service.stop();
    await fetch(`${env.OPENSEARCH_URL}/bench-ocr-${run}`, { method: 'DELETE' });
  }
}

export async function run(): Promise<void> {
  const cloud = await startMineruCloudStub({ token: KEY, pageMs: PAGE_MS });
  try {
    const env = ocrServiceEnv(cloud.url, KEY);
    const file = await benchmarkPdf(PAGES);
    const rates = new Map<number, number>();
    for (const workers of [1, 2, 4]) rates.set(workers, await tasksPerMinute(workers, env, file));
    const single = rates.get(1) ?? 0;
    report(
      `tasks of ${PAGES} pages, cloud engine double at ${PAGE_MS} ms a page, ${TASKS_PER_WORKER} tasks per worker`,
    );
    table(
      [...rates].map(([workers, rate]) => ({
        workers,
        'tasks/min': rate.toFixed(1),
        'linear tasks/min': (single * workers).toFixed(1),
        'ratio to linear': (rate / (single * workers)).toFixed(2),
        target: '>= 0.90',
      })),
    );
  } finally {
    await cloud.close();
  }
}
