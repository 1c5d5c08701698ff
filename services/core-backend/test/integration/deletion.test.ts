/**
 * Deletion leaves nothing behind: a workspace with a document processed by the real OCR chain
 * and a transcribed audio, deleted, is gone from every table, index and bucket — also when
 * object storage is away during the DELETE (the core backend reaches MinIO through a TCP link
 * the test cuts): the deletion job is finished by the worker, across a restart, once it is back.
 * The same for a document and an audio deleted on their own, and for a document deleted while
 * its OCR task still runs: what the task writes after is removed once it has ended.
 */
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { makeWav } from '@pelita/llm-stub';
import { freePort, requireEnv, startTcpLink, type TcpLink } from '@pelita/testenv';
import pg from 'pg';
import { textPdf } from '../../../ocr-service/test/integration/support/documents';
import { expectJson, type TestUser } from './support/core-stack';
import { startDocumentStack, type DocumentStack } from './support/document-stack';

const env = requireEnv(
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);

interface Made {
  workspaceId: string;
  documentId: string;
  taskId: string;
  audioId: string;
}

interface Job {
  kind: string;
  run_after: Date;
  attempts: number;
  last_error: string | null;
  finished_at: Date | null;
}

describe('deletion leaves nothing behind', () => {
  let stack: DocumentStack;
  let s3Link: TcpLink;
  let owner: TestUser;
  let pool: pg.Pool;
  const s3 = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY, secretAccessKey: env.S3_SECRET_KEY },
  });

  beforeAll(async () => {
    const minio = new URL(env.S3_ENDPOINT);
    s3Link = await startTcpLink(await freePort(), Number(minio.port));
    stack = await startDocumentStack({
      // The core backend's object storage only: the OCR worker keeps its direct way to MinIO.
      S3_ENDPOINT: `${minio.protocol}//127.0.0.1:${s3Link.port}`,
      // Speech-to-text on the stand-in the stack already runs.
      STT_MODEL: 'pelita-stub',
      AUDIO_POLL_INTERVAL_MS: '100',
    });
    owner = await stack.core.admin();
    pool = new pg.Pool({
      connectionString: stack.core.platform.databaseUrl,
      options: '-c search_path=core_backend',
    });
    // Its idle connections end when the platform drops the database at the end.
    pool.on('error', () => undefined);
  }, 180_000);
  // A test failing while object storage is cut or the OCR worker stopped must not leave it so.
  afterEach(async () => {
    await s3Link.restore().catch(() => undefined);
    await stack.startWorker();
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
    await s3Link?.close();
    s3.destroy();
  });

  const call = (method: string, path: string, body?: unknown) =>
    stack.core.call(method, path, owner.token, body);

  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function uploadTo(
    workspaceId: string,
    kind: 'documents' | 'audios',
    name: string,
    bytes: Buffer,
  ) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    const res = await fetch(`${stack.core.url}/api/workspaces/${workspaceId}/${kind}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    return expectJson<{ id: string; task_id?: string }>(res, 201);
  }

  /** A workspace with a document processed with its summary and an audio transcribed. */
  async function workspaceWithKnowledge(word: string): Promise<Made> {
    const workspaceId = (
      await expectJson<{ id: string }>(call('POST', '/api/workspaces', { name: word }), 201)
    ).id;
    const pdf = await textPdf(2, (page) => `The ${word} ledger, page ${page}, lists ${word}s.`);
    const document = await uploadTo(workspaceId, 'documents', `${word}.pdf`, pdf);
    const audio = await uploadTo(
      workspaceId,
      'audios',
      `${word}.wav`,
      makeWav({ seconds: 4, script: `Ratna: The ${word} arrives on Monday.` }),
    );
    const base = `/api/workspaces/${workspaceId}`;
    const doc = await until(
      'document not processed',
      () =>
        expectJson<{ state: string; summary_state: string }>(
          call('GET', `${base}/documents/${document.id}`),
          200,
        ),
      (d) => d.state === 'failed' || (d.state === 'done' && d.summary_state !== 'pending'),
    );
    expect(doc).toMatchObject({ state: 'done', summary_state: 'done' });
    const recording = await until(
      'audio not transcribed',
      () =>
        expectJson<{ state: string; summary_state: string }>(
          call('GET', `${base}/audios/${audio.id}`),
          200,
        ),
      (a) => a.state === 'failed' || (a.state === 'done' && a.summary_state !== 'pending'),
    );
    expect(recording.state).toBe('done');
    return { workspaceId, documentId: document.id, taskId: document.task_id!, audioId: audio.id };
  }

  async function count(index: string, term: Record<string, string>): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${env.OPENSEARCH_URL}/${index}/_count?ignore_unavailable=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { term } }),
      });
      if (res.ok) return ((await res.json()) as { count: number }).count;
      // An index the summarizer has only just made answers 503 until its shard has started.
      if (res.status !== 503 || attempt === 20) {
        throw new Error(`count in ${index}: ${res.status} ${await res.text()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async function stored(key: string): Promise<boolean> {
    return s3
      .send(new HeadObjectCommand({ Bucket: stack.ocr.env.S3_BUCKET, Key: key }))
      .then(() => true)
      .catch((err: { name?: string }) => {
        if (err.name === 'NotFound') return false;
        throw err;
      });
  }

  async function rows(table: string, column: string, id: string): Promise<number> {
    const { rows: found } = await pool.query<{ n: number }>(
      `select count(*)::int as n from ${table} where ${column} = $1`,
      [id],
    );
    return found[0]!.n;
  }

  /** What is still stored anywhere of the things `made` consists of (zero everywhere: nothing). */
  async function remains(made: Made, parts: Array<'document' | 'audio' | 'workspace'>) {
    const { INDEX_PDF_PARSING_RESULTS, INDEX_DOCUMENT_SUMMARIZE, INDEX_DOCUMENT_SUMMARIZE_CHUNK } =
      stack.ocr.env;
    const found: Record<string, number | boolean> = {};
    if (parts.includes('workspace')) {
      found.workspacePassages = await count('core-knowledge-*', { workspace_id: made.workspaceId });
      for (const table of ['workspaces']) found[table] = await rows(table, 'id', made.workspaceId);
      for (const table of ['workspace_users', 'resource_access', 'documents', 'audios']) {
        found[table] = await rows(table, 'workspace_id', made.workspaceId);
      }
    }
    if (parts.includes('document')) {
      found.documentPassages = await count('core-knowledge-*', { resource_id: made.documentId });
      found.ocrChunks = await count(INDEX_PDF_PARSING_RESULTS!, { pdf_id: made.taskId });
      found.chunkSummaries = await count(INDEX_DOCUMENT_SUMMARIZE_CHUNK!, { task_id: made.taskId });
      found.summary = (
        await fetch(`${env.OPENSEARCH_URL}/${INDEX_DOCUMENT_SUMMARIZE}/_doc/${made.taskId}`)
      ).ok;
      found.pdf = await stored(`ocr-documents/${made.taskId}.pdf`);
      found.original = await stored(`core-documents/${made.documentId}`);
      found.documentRow = await rows('documents', 'id', made.documentId);
      found.ocrResultRow = await rows('document_ocr_results', 'document_id', made.documentId);
      found.summaryRow = await rows('document_summaries', 'document_id', made.documentId);
      found.documentAccess = await rows('resource_access', 'resource_id', made.documentId);
    }
    if (parts.includes('audio')) {
      found.audioPassages = await count('core-knowledge-*', { resource_id: made.audioId });
      found.recording = await stored(`core-audios/${made.audioId}`);
      found.audioRow = await rows('audios', 'id', made.audioId);
      for (const table of [
        'audio_documents',
        'audio_document_chunks',
        'audio_document_summaries',
      ]) {
        found[table] = await rows(table, 'audio_id', made.audioId);
      }
      found.audioAccess = await rows('resource_access', 'resource_id', made.audioId);
    }
    return found;
  }
  const nothing = (found: Record<string, number | boolean>) =>
    Object.fromEntries(
      Object.keys(found).map((key) => [key, typeof found[key] === 'boolean' ? false : 0]),
    );

  async function jobOf(targetId: string): Promise<Job | undefined> {
    const { rows: jobs } = await pool.query<Job>(
      'select kind, attempts, last_error, run_after, finished_at from deletion_jobs where target_id = $1',
      [targetId],
    );
    return jobs[0];
  }

  it('removes a deleted workspace from every table, index and bucket', async () => {
    const made = await workspaceWithKnowledge('heron');
    const before = await remains(made, ['workspace', 'document', 'audio']);
    // Everything there first, so the emptiness below means something.
    const counted = ['workspacePassages', 'documentPassages', 'ocrChunks', 'audioPassages'];
    expect(counted.filter((key) => !((before[key] as number) > 0))).toEqual([]);
    expect(before).toMatchObject({ summary: true, pdf: true, original: true, recording: true });

    await expectJson(call('DELETE', `/api/workspaces/${made.workspaceId}`), 200);
    await expectJson(call('GET', `/api/workspaces/${made.workspaceId}`), 404);
    // Run at once; on a loaded machine the first run may meet a server that fails for a moment
    // (an index shard still recovering) and is then retried: what counts is that it ends.
    const job = await until(
      'deletion job not finished',
      () => jobOf(made.workspaceId),
      (found) => Boolean(found?.finished_at),
    );
    expect(job).toMatchObject({ kind: 'workspace', finished_at: expect.any(Date) });
    const after = await remains(made, ['workspace', 'document', 'audio']);
    expect(after).toEqual(nothing(after));
  });

  it('finishes a workspace deletion interrupted by object storage being away in a restarted core backend', async () => {
    const made = await workspaceWithKnowledge('osprey');
    await s3Link.cut();
    // The workspace is gone for everyone at once; its files wait for object storage.
    await expectJson(call('DELETE', `/api/workspaces/${made.workspaceId}`), 200);
    await expectJson(call('GET', `/api/workspaces/${made.workspaceId}`), 404);
    const job = await jobOf(made.workspaceId);
    expect(job).toMatchObject({ kind: 'workspace', finished_at: null });
    expect(job!.attempts).toBeGreaterThanOrEqual(1);
    expect(job!.last_error).toBeTruthy();
    const halfway = await remains(made, ['document', 'audio']);
    expect(halfway).toMatchObject({ original: true, recording: true, documentPassages: 0 });

    // Object storage back and the core backend restarted before the job is due again: the
    // stopped process never tried it again, the new one finishes it from PostgreSQL.
    await s3Link.restore();
    await stack.core.restart();
    expect(Date.now()).toBeLessThan(job!.run_after.getTime());
    await until(
      'deletion job not finished',
      () => jobOf(made.workspaceId),
      (j) => Boolean(j?.finished_at),
    );
    const after = await remains(made, ['workspace', 'document', 'audio']);
    expect(after).toEqual(nothing(after));
  }, 240_000);

  it('finishes a document and an audio deleted while object storage is away once it is back', async () => {
    const made = await workspaceWithKnowledge('plover');
    await s3Link.cut();
    const base = `/api/workspaces/${made.workspaceId}`;
    await expectJson(call('DELETE', `${base}/documents/${made.documentId}`), 200);
    await expectJson(call('DELETE', `${base}/audios/${made.audioId}`), 200);
    await expectJson(call('GET', `${base}/documents/${made.documentId}`), 404);
    await expectJson(call('GET', `${base}/audios/${made.audioId}`), 404);
    expect(await jobOf(made.documentId)).toMatchObject({ kind: 'document', finished_at: null });
    expect(await jobOf(made.audioId)).toMatchObject({ kind: 'audio', finished_at: null });
    expect(await remains(made, ['document', 'audio'])).toMatchObject({
      original: true,
      recording: true,
    });

    await s3Link.restore();
    for (const id of [made.documentId, made.audioId]) {
      await until(
        'deletion job not finished',
        () => jobOf(id),
        (j) => Boolean(j?.finished_at),
      );
    }
    const after = await remains(made, ['document', 'audio']);
    expect(after).toEqual(nothing(after));
    await expectJson(call('DELETE', `/api/workspaces/${made.workspaceId}`), 200);
  }, 240_000);

  it('removes what the OCR task of a document deleted mid-processing writes after', async () => {
    const workspaceId = (
      await expectJson<{ id: string }>(call('POST', '/api/workspaces', { name: 'late' }), 201)
    ).id;
    // The task waits in the OCR queue: it writes its chunks, PDF and summary after the DELETE.
    await stack.stopWorker();
    const pdf = await textPdf(1, () => 'The late egret ledger.');
    const document = await uploadTo(workspaceId, 'documents', 'late.pdf', pdf);
    const base = `/api/workspaces/${workspaceId}`;
    await expectJson(call('DELETE', `${base}/documents/${document.id}`), 200);
    await expectJson(call('GET', `${base}/documents/${document.id}`), 404);
    const waiting = await jobOf(document.id);
    expect(waiting).toMatchObject({ kind: 'document', attempts: 0, finished_at: null });
    expect(waiting!.last_error).toContain(`waiting for OCR tasks ${document.id}`);

    await stack.startWorker();
    await until(
      'deletion job not finished',
      () => jobOf(document.id),
      (j) => Boolean(j?.finished_at),
    );
    const made = { workspaceId, documentId: document.id, taskId: document.id, audioId: '' };
    const after = await remains(made, ['document']);
    expect(after).toEqual(nothing(after));
    await expectJson(call('DELETE', `/api/workspaces/${workspaceId}`), 200);
  }, 240_000);

  it('keeps no original of an upload the OCR service refuses', async () => {
    const workspaceId = (
      await expectJson<{ id: string }>(call('POST', '/api/workspaces', { name: 'refused' }), 201)
    ).id;
    const originals = async () =>
      (
        await s3.send(
          new ListObjectsV2Command({ Bucket: stack.ocr.env.S3_BUCKET, Prefix: 'core-documents/' }),
        )
      ).KeyCount ?? 0;
    const before = await originals();
    const form = new FormData();
    form.append('file', new Blob(['just text']), 'notes.xyz');
    const res = await fetch(`${stack.core.url}/api/workspaces/${workspaceId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    expect(res.status).toBe(415);
    expect(await originals()).toBe(before);
    await expectJson(call('DELETE', `/api/workspaces/${workspaceId}`), 200);
  });
});
