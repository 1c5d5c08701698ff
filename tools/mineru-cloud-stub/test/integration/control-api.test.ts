/** The double as a process (`dist/main.js`) and its control API over HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { StubStats } from '../../src';
import { numberedPdf } from './support/documents';
import { item, mineruClient, settled } from './support/mineru-client';

async function startProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  // The built entry: `make test` builds before testing.
  const entry = join(__dirname, '..', '..', 'dist', 'main.js');
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
  });
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

async function stopProcess(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('the MinerU cloud double process', () => {
  let child: ChildProcess;
  let url: string;
  let client: ReturnType<typeof mineruClient>;
  let origin: string;

  beforeAll(async () => {
    ({ child, url } = await startProcess({
      MINERU_STUB_TOKEN: 'process-token',
      MINERU_STUB_PAGE_MS: '5',
      MINERU_STUB_FAULTS: JSON.stringify([
        { match: '^doomed', fault: { kind: 'fail', code: -60003 } },
      ]),
    }));
    origin = new URL(url).origin;
    client = mineruClient({ url }, 'process-token');
  });
  afterAll(async () => {
    expect(await stopProcess(child)).toBe(0);
  });

  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}/_stub${path}`, {
      method,
      ...(body !== undefined
        ? { body: typeof body === 'string' ? body : JSON.stringify(body) }
        : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('prints its API URL, checks the token from the environment and applies the faults given there', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v4$/);
    expect(
      (await mineruClient({ url }, 'wrong').call('GET', '/extract-results/batch/x')).status,
    ).toBe(401);
    const batch = await client.createBatch(['doomed.pdf', 'fine.pdf']);
    const pdf = await numberedPdf(2);
    await Promise.all(batch.file_urls.map((fileUrl) => client.upload(fileUrl, pdf)));
    const items = await client.waitForBatch(batch.batch_id, settled);
    expect(item(items, 'doomed.pdf')).toMatchObject({ state: 'failed', err_code: -60003 });
    expect(item(items, 'fine.pdf').state).toBe('done');
  });

  it('reports statistics and clears them', async () => {
    const stats = (await control('GET', '/stats')).body as unknown as StubStats;
    expect(stats).toMatchObject({ batchesCreated: 1, uploads: 2, authFailures: 1 });
    expect(stats.files.map((file) => [file.fileName, file.state, file.faults])).toEqual([
      ['doomed.pdf', 'failed', ['fail']],
      ['fine.pdf', 'done', []],
    ]);
    expect(await control('POST', '/reset')).toEqual({ status: 200, body: { reset: true } });
    expect((await control('GET', '/stats')).body).toMatchObject({ batchesCreated: 0, files: [] });
  });

  it('replaces the fault rules, and refuses invalid ones with 400', async () => {
    expect(
      await control('PUT', '/faults', {
        faults: [{ match: 'HOLD', flags: 'i', fault: { kind: 'never-finish' } }],
      }),
    ).toEqual({ status: 200, body: { faults: 1 } });
    for (const bad of [{ faults: [{ fault: { kind: 'boom' } }] }, { faults: 'all' }, '{oops']) {
      expect((await control('PUT', '/faults', bad)).status).toBe(400);
    }
    const batch = await client.createBatch(['hold.pdf']);
    await client.upload(batch.file_urls[0] ?? '', await numberedPdf(1));
    const [held] = await client.waitForBatch(batch.batch_id, (all) => all[0]?.state === 'running');
    expect(held?.extract_progress).toMatchObject({ extracted_pages: 0, total_pages: 1 });
    expect((await control('GET', '/stats')).body.files).toEqual([
      expect.objectContaining({ fileName: 'hold.pdf', faults: ['never-finish'] }),
    ]);
    await control('PUT', '/faults', { faults: [] });
  });

  it('changes its timings and limits, and refuses unknown options', async () => {
    const changed = await control('PUT', '/options', { maxPages: 1, pageMs: 1 });
    expect(changed).toMatchObject({ status: 200, body: { maxPages: 1, pageMs: 1 } });
    expect((await control('PUT', '/options', { pageMs: -1 })).status).toBe(400);
    expect((await control('PUT', '/options', { token: 'steal' })).status).toBe(400);
    const batch = await client.createBatch(['two-pages.pdf']);
    await client.upload(batch.file_urls[0] ?? '', await numberedPdf(2));
    const [result] = await client.waitForBatch(batch.batch_id, settled);
    expect(result).toMatchObject({ state: 'failed', err_code: -60006 });
    await control('PUT', '/options', { maxPages: 600 });
  });

  it('hosts files for URL tasks', async () => {
    const res = await fetch(`${origin}/_stub/files/hosted.pdf`, {
      method: 'PUT',
      body: new Uint8Array(await numberedPdf(1)),
    });
    const { url: fileUrl } = (await res.json()) as { url: string };
    expect(fileUrl).toBe(`${origin}/files/hosted.pdf`);
    expect((await fetch(fileUrl)).status).toBe(200);
    const created = await client.call<{ task_id: string }>('POST', '/extract/task', {
      url: fileUrl,
    });
    expect(created.body.code).toBe(0);
    expect((await control('GET', '/nowhere')).status).toBe(404);
  });
});
