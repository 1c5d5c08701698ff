/**
 * Every scripted fault over HTTP, as a poller meets it: a file that never finishes, fails, runs
 * slowly; an upload refused; a corrupt archive; a poll endpoint that errs, then recovers; an
 * archive download that errs or stalls.
 */
import { startMineruCloudStub, type MineruCloudStub } from '../../src';
import { numberedPdf } from './support/documents';
import { item, mineruClient, settled, TOKEN } from './support/mineru-client';
import { download, unzipBuffer } from './support/unzip';

describe('the MinerU cloud double with faults', () => {
  let stub: MineruCloudStub;
  let client: ReturnType<typeof mineruClient>;
  let pdf: Buffer;

  beforeAll(async () => {
    stub = await startMineruCloudStub({ token: TOKEN, queueMs: 5, pageMs: 10, convertingMs: 5 });
    client = mineruClient(stub);
    pdf = await numberedPdf(3);
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
  });

  /** A batch of `names`, every file uploaded with the three-page PDF. */
  async function uploadedBatch(names: string[]) {
    const batch = await client.createBatch(names);
    for (const url of batch.file_urls) expect((await client.upload(url, pdf)).status).toBe(200);
    return batch.batch_id;
  }

  it('never-finish: the file stays running one page short, while its twin finishes', async () => {
    stub.setFaults([{ match: /^stuck/, fault: { kind: 'never-finish' } }]);
    const batchId = await uploadedBatch(['stuck.pdf', 'twin.pdf']);
    const items = await client.waitForBatch(
      batchId,
      (all) => item(all, 'twin.pdf').state === 'done',
    );
    // The twin ran the same pages at the same pace: the stuck file would be done by now.
    const stuck = await client.waitForBatch(
      batchId,
      (all) => item(all, 'stuck.pdf').extract_progress?.extracted_pages === 2,
    );
    expect(item(items, 'twin.pdf').full_zip_url).toEqual(expect.any(String));
    expect(item(stuck, 'stuck.pdf')).toMatchObject({
      state: 'running',
      extract_progress: { extracted_pages: 2, total_pages: 3 },
    });
    expect(item(stuck, 'stuck.pdf')).not.toHaveProperty('full_zip_url');
    expect(stub.stats().files.map((f) => [f.fileName, f.faults])).toEqual([
      ['stuck.pdf', ['never-finish']],
      ['twin.pdf', []],
    ]);
  });

  it('fail: the file ends failed with the code and message, after the pages asked', async () => {
    stub.setFaults([
      { match: 'plain', fault: { kind: 'fail' } },
      {
        match: 'late',
        fault: {
          kind: 'fail',
          code: -60007,
          message: 'model service temporarily unavailable',
          atPage: 2,
        },
      },
    ]);
    const batchId = await uploadedBatch(['plain.pdf', 'late.pdf', 'fine.pdf']);
    const items = await client.waitForBatch(batchId, settled);
    expect(item(items, 'plain.pdf')).toEqual({
      file_name: 'plain.pdf',
      state: 'failed',
      err_msg: 'parse failed',
      err_code: -60010,
    });
    expect(item(items, 'late.pdf')).toMatchObject({
      state: 'failed',
      err_code: -60007,
      err_msg: 'model service temporarily unavailable',
    });
    expect(stub.stats().files.find((f) => f.fileName === 'late.pdf')?.extractedPages).toBe(2);
    expect(item(items, 'fine.pdf').state).toBe('done');
  });

  it('slow: the file runs at its own per-page pace and still finishes', async () => {
    stub.setFaults([{ match: 'slow', fault: { kind: 'slow', pageMs: 300 } }]);
    const batchId = await uploadedBatch(['slow.pdf', 'quick.pdf']);
    const whenQuickDone = await client.waitForBatch(
      batchId,
      (all) => item(all, 'quick.pdf').state === 'done',
    );
    // 3 pages × 300 ms against 3 × 10 ms: the slow file is still at work.
    expect(item(whenQuickDone, 'slow.pdf').state).toMatch(/^(pending|running)$/);
    const items = await client.waitForBatch(batchId, settled);
    expect(item(items, 'slow.pdf').state).toBe('done');
    expect(stub.stats().files.find((f) => f.fileName === 'slow.pdf')?.faults).toEqual(['slow']);
  });

  it('upload-rejected: the PUT fails with a storage error; a retry goes through', async () => {
    stub.setFaults([{ times: 1, fault: { kind: 'upload-rejected', status: 500 } }]);
    const batch = await client.createBatch(['retry.pdf']);
    const url = batch.file_urls[0] ?? '';
    const first = await client.upload(url, pdf);
    expect(first.status).toBe(500);
    expect(first.headers.get('content-type')).toBe('application/xml');
    expect(await first.text()).toContain('<Code>InternalError</Code>');
    const waiting = await client.pollBatch(batch.batch_id);
    expect(waiting.body.data.extract_result[0]?.state).toBe('waiting-file');

    expect((await client.upload(url, pdf)).status).toBe(200);
    const [done] = await client.waitForBatch(batch.batch_id, settled);
    expect(done?.state).toBe('done');
    expect(stub.stats()).toMatchObject({ uploads: 1, uploadsRejected: 1 });

    stub.setFaults([{ fault: { kind: 'upload-rejected' } }]);
    const denied = await client.upload(
      (await client.createBatch(['x.pdf'])).file_urls[0] ?? '',
      pdf,
    );
    expect(denied.status).toBe(403);
    expect(await denied.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('bad-zip: the archive downloads but is corrupt, cut short or not a zip', async () => {
    stub.setFaults([
      { match: 'cut', fault: { kind: 'bad-zip' } },
      { match: 'html', fault: { kind: 'bad-zip', mode: 'not-zip' } },
    ]);
    const batchId = await uploadedBatch(['cut.pdf', 'html.pdf', 'good.pdf']);
    const items = await client.waitForBatch(batchId, settled);
    for (const name of ['cut.pdf', 'html.pdf']) {
      expect(item(items, name).state).toBe('done');
      const { status, zip } = await download(item(items, name).full_zip_url ?? '');
      expect(status).toBe(200);
      expect(unzipBuffer(zip).sound).toBe(false);
    }
    const good = unzipBuffer((await download(item(items, 'good.pdf').full_zip_url ?? '')).zip);
    expect(good.sound).toBe(true);
    expect(good.text('full.md')).toContain('This is page number 3.');
    expect(stub.stats().downloads).toBe(3);
  });

  it('status-error: the poll answers 500 twice with an error body, then the state', async () => {
    const batchId = await uploadedBatch(['flaky.pdf']);
    stub.setFaults([{ match: 'flaky', times: 2, fault: { kind: 'status-error' } }]);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const { status, body } = await client.pollBatch(batchId);
      expect(status).toBe(500);
      expect(body).toMatchObject({ code: -10001, msg: 'service error' });
    }
    const recovered = await client.pollBatch(batchId);
    expect(recovered.status).toBe(200);
    expect(recovered.body.code).toBe(0);
    await client.waitForBatch(batchId, settled);
    expect(stub.stats()).toMatchObject({ pollErrors: 2 });

    // The same on a URL task, and with another status.
    stub.setFaults([{ times: 1, fault: { kind: 'status-error', status: 503 } }]);
    const created = await client.call<{ task_id: string }>('POST', '/extract/task', {
      url: stub.hostFile('flaky-url.pdf', pdf),
    });
    const polled = await client.call('GET', `/extract/task/${created.body.data.task_id}`);
    expect(polled.status).toBe(503);
    expect((await client.call('GET', `/extract/task/${created.body.data.task_id}`)).status).toBe(
      200,
    );
  });

  it('download-error: the archive answers the status N times, then the archive', async () => {
    const batchId = await uploadedBatch(['cdn.pdf']);
    const [done] = await client.waitForBatch(batchId, settled);
    stub.setFaults([{ match: 'cdn', times: 2, fault: { kind: 'download-error', status: 503 } }]);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const res = await fetch(done?.full_zip_url ?? '');
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('<Code>ServiceUnavailable</Code>');
    }
    const { status, zip } = await download(done?.full_zip_url ?? '');
    expect(status).toBe(200);
    expect(unzipBuffer(zip).text('full.md')).toContain('This is page number 1.');
    expect(stub.stats().downloads).toBe(3);
  });

  it('download-stall: half the archive arrives, then nothing until the client gives up', async () => {
    const batchId = await uploadedBatch(['stall.pdf']);
    const [done] = await client.waitForBatch(batchId, settled);
    stub.setFaults([{ match: 'stall', times: 1, fault: { kind: 'download-stall' } }]);
    const leave = new AbortController();
    const res = await fetch(done?.full_zip_url ?? '', { signal: leave.signal });
    expect(res.status).toBe(200);
    const total = Number(res.headers.get('content-length'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    // The positive signal: the first half has arrived.
    while (received < Math.floor(total / 2)) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error(`the body ended after ${received} of ${total} bytes`);
      received += value.length;
    }
    expect(received).toBe(Math.floor(total / 2));
    leave.abort();
    await expect(reader.read()).rejects.toThrow();
    // The next download is whole again.
    const again = await download(done?.full_zip_url ?? '');
    expect(again.zip.length).toBe(total);
    expect(unzipBuffer(again.zip).sound).toBe(true);
  });
});
