/**
 * Tasks the API cannot take: the queue is full (429 with Retry-After) or Redis, MinIO or
 * OpenSearch is down (503). Nothing is left behind: no record, no staged object, no message.
 * "Down" is a real closed port on this machine, not a stand-in.
 */
import { freePort } from '@pelita/testenv';
import { textPdf } from '../support/documents';
import {
  formOf,
  isolatedNames,
  sharedState,
  startApi,
  type ApiUnderTest,
  bodyOf,
} from './support/api-under-test';

const url = (name: string) => `https://files.example.com/${name}`;

describe('a full queue', () => {
  const names = isolatedNames();
  const state = sharedState(names);
  let api: ApiUnderTest;
  let pdf: Buffer;
  beforeAll(async () => {
    api = await startApi(names, { MAX_QUEUED_TASKS: '2', MAX_FILES_PER_REQUEST: '5' });
    pdf = await textPdf(1, () => 'Queued');
  });
  afterAll(async () => {
    await api?.stop();
    await state.cleanUp();
  });

  const post = (path: string, body?: FormData | string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/api/v1/pdfs${path}`, {
      method: 'POST',
      ...(body !== undefined ? { body } : {}),
      headers,
    });
  const expectFull = async (res: Response) => {
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect((await bodyOf(res)).error.code).toBe('queue_full');
  };

  it('queues a bulk request up to the bound and says which URLs were refused', async () => {
    const res = await post(
      '/bulk',
      JSON.stringify({ url_files: [url('1.pdf'), url('2.pdf'), url('3.pdf')] }),
      { 'content-type': 'application/json' },
    );
    expect(res.status).toBe(200);
    const { tasks } = await bodyOf(res);
    expect(tasks[0]).toMatchObject({ url_file: url('1.pdf'), status: 'pending' });
    expect(tasks[1]).toMatchObject({ url_file: url('2.pdf'), status: 'pending' });
    expect(tasks[2]).toEqual({
      url_file: url('3.pdf'),
      error: { code: 'queue_full', message: expect.stringMatching(/queue is full/) },
    });
    expect(await state.queueLength()).toBe(2);
  });

  it('answers 429 with Retry-After for an upload and leaves no record and no staged file', async () => {
    await expectFull(await post('?task_id=full-1', formOf([{ name: 'a.pdf', bytes: pdf }])));
    expect((await fetch(`${api.url}/api/v1/tasks/full-1/status`)).status).toBe(404);
    expect(await state.objectKeys('ocr-uploads/full-1/')).toEqual([]);
    expect(await state.queueLength()).toBe(2);
    // The id is free again: nothing claims it.
    expect(await state.redis.exists(`${names.REDIS_KEY_PREFIX}:task:full-1`)).toBe(0);
  });

  it('answers 429 for a merge, removing every file it had staged', async () => {
    const files = ['a.pdf', 'b.pdf', 'c.pdf'].map((name) => ({ field: 'files', name, bytes: pdf }));
    await expectFull(await post('/merge?task_id=full-merge', formOf(files)));
    expect(await state.objectKeys('ocr-uploads/full-merge/')).toEqual([]);
    expect((await fetch(`${api.url}/api/v1/tasks/full-merge/status`)).status).toBe(404);
  });

  it('answers 429 for bulk requests of which nothing could be queued', async () => {
    await expectFull(
      await post('/bulk', JSON.stringify({ url_files: [url('4.pdf')] }), {
        'content-type': 'application/json',
      }),
    );
    const files = ['a.pdf', 'b.pdf'].map((name) => ({ field: 'files', name, bytes: pdf }));
    await expectFull(await post('/bulk/upload', formOf(files)));
    expect(await state.objectKeys('ocr-uploads/')).toHaveLength(0);
  });

  it('counts the refusals and shows the queue depth in /metrics', async () => {
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^ocr_tasks_submitted_total\{outcome="queued",processing="cloud"\} 2$/m,
    );
    expect(metrics).toMatch(
      /^ocr_tasks_submitted_total\{outcome="queue_full",processing="cloud"\} [1-9]/m,
    );
    expect(metrics).toMatch(/^ocr_queue_depth 2$/m);
    expect(metrics).toMatch(/^ocr_tasks\{status="pending",stage="pending"\} 2$/m);
  });
});

describe('a dependency down', () => {
  const names = isolatedNames();
  const state = sharedState(names);
  let healthy: ApiUnderTest;
  let pdf: Buffer;
  beforeAll(async () => {
    healthy = await startApi(names);
    pdf = await textPdf(1, () => 'Down');
  });
  afterAll(async () => {
    await healthy?.stop();
    await state.cleanUp();
  });

  const closedPort = async (scheme: string) => `${scheme}://127.0.0.1:${await freePort()}`;

  it('Redis down: 503 queue_unavailable for a new task and a status, /ready 503', async () => {
    const api = await startApi(names, { REDIS_URL: await closedPort('redis') }, { start: false });
    try {
      const res = await fetch(`${api.url}/api/v1/pdfs?url_file=${url('a.pdf')}`, {
        method: 'POST',
      });
      expect(res.status).toBe(503);
      const { error } = await bodyOf(res);
      expect(error).toEqual({
        code: 'queue_unavailable',
        message: expect.stringMatching(/Redis/),
      });
      const status = await fetch(`${api.url}/api/v1/tasks/any/status`);
      expect(status.status).toBe(503);
      const ready = await fetch(`${api.url}/ready`);
      expect(ready.status).toBe(503);
      expect((await bodyOf(ready)).checks.redis.status).toBe('down');
    } finally {
      await api.stop();
    }
  });

  it('object storage down: 503 storage_unavailable, and the record it had made is gone', async () => {
    const api = await startApi(names, { S3_ENDPOINT: await closedPort('http') }, { start: false });
    try {
      const res = await fetch(`${api.url}/api/v1/pdfs?task_id=s3-down`, {
        method: 'POST',
        body: formOf([{ name: 'a.pdf', bytes: pdf }]),
      });
      expect(res.status).toBe(503);
      expect((await bodyOf(res)).error.code).toBe('storage_unavailable');
      // A URL task needs no object storage.
      const byUrl = await fetch(`${api.url}/api/v1/pdfs?url_file=${url('b.pdf')}`, {
        method: 'POST',
      });
      expect(byUrl.status).toBe(200);
    } finally {
      await api.stop();
    }
    expect((await fetch(`${healthy.url}/api/v1/tasks/s3-down/status`)).status).toBe(404);
    expect((await state.messages()).map((m) => m.taskId)).not.toContain('s3-down');
    expect(await state.objectKeys('ocr-uploads/s3-down/')).toEqual([]);
  });

  it('OpenSearch down: 503 for chunks and ingestion, health 503 with `error`', async () => {
    const api = await startApi(
      names,
      { OPENSEARCH_URL: await closedPort('http') },
      { start: false },
    );
    try {
      const chunks = await fetch(`${api.url}/api/v1/pdfs/some-id`);
      expect(chunks.status).toBe(503);
      expect((await bodyOf(chunks)).error.code).toBe('search_unavailable');
      const ingest = await fetch(`${api.url}/api/v1/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pdf_name: 'a.pdf', text: 'hello' }),
      });
      expect(ingest.status).toBe(503);
      const health = await fetch(`${api.url}/api/v1/health`);
      expect(health.status).toBe(503);
      expect(await bodyOf(health)).toEqual({
        status: 'unhealthy',
        search: { status: 'error' },
        engines: { cloud: true, local: true },
        error: {
          code: 'search_unhealthy',
          message: 'The search cluster did not answer its health check',
        },
      });
    } finally {
      await api.stop();
    }
  });
});
