/**
 * MinerU's v4 protocol end to end over HTTP: batch → PUT → poll (pending, running with page
 * progress, converting, done) → download → unzip; URL tasks; inputs that are not PDFs; limits;
 * the errors a client must handle (token, parameters, unknown ids, presigned URL misuse).
 */
import { startMineruCloudStub, type MineruCloudStub } from '../../src';
import { numberedPdf, PNG_PIXEL, textPdf } from './support/documents';
import { item, mineruClient, settled, TOKEN, type BatchItem } from './support/mineru-client';
import { download, unzipBuffer } from './support/unzip';

describe('the MinerU cloud double', () => {
  let stub: MineruCloudStub;
  let client: ReturnType<typeof mineruClient>;

  beforeAll(async () => {
    stub = await startMineruCloudStub({ token: TOKEN, queueMs: 5, pageMs: 10, convertingMs: 5 });
    client = mineruClient(stub);
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({
      queueMs: 5,
      pageMs: 10,
      convertingMs: 5,
      maxPages: 600,
      maxFileBytes: 10_000_000,
    });
  });

  it('runs a batch through every state with page progress and serves a zip with the words', async () => {
    stub.configure({ queueMs: 150, pageMs: 150, convertingMs: 150 });
    const pdf = await textPdf([
      { title: 'Harvest Report', lines: ['Rice prices fell sharply in Surabaya.'] },
      { lines: ['Fishermen in Makassar reported calm seas.'] },
      { lines: ['The ministry promised new irrigation canals.'] },
    ]);
    const batch = await client.createBatch(['report.pdf'], {
      language: 'en',
      enable_formula: true,
      enable_table: true,
      model_version: 'pipeline',
    });
    expect(batch.batch_id).toEqual(expect.any(String));
    expect(batch.file_urls).toHaveLength(1);

    const before = await client.pollBatch(batch.batch_id);
    expect(before.body.data.extract_result).toEqual([
      { file_name: 'report.pdf', state: 'waiting-file', err_msg: '' },
    ]);

    const put = await client.upload(batch.file_urls[0] ?? '', pdf);
    expect(put.status).toBe(200);

    const seen: BatchItem[][] = [];
    // Each state is awaited as a positive signal, in order.
    await client.waitForBatch(batch.batch_id, (items) => items[0]?.state === 'pending', seen);
    await client.waitForBatch(
      batch.batch_id,
      (items) => {
        const progress = items[0]?.extract_progress;
        return (
          progress !== undefined && progress.extracted_pages >= 1 && progress.extracted_pages < 3
        );
      },
      seen,
    );
    await client.waitForBatch(batch.batch_id, (items) => items[0]?.state === 'converting', seen);
    const [done] = await client.waitForBatch(batch.batch_id, settled, seen);

    const states = seen.map((items) => items[0]?.state);
    // The states in MinerU's order, each seen at least once, none after a later one.
    const order = ['pending', 'running', 'converting', 'done'];
    expect([...new Set(states)]).toEqual(order);
    expect(states.map((state) => order.indexOf(state ?? ''))).toEqual(
      [...states.map((state) => order.indexOf(state ?? ''))].sort((a, b) => a - b),
    );
    const progress = seen.flatMap((items) => items[0]?.extract_progress ?? []);
    expect(progress.every((p) => p.total_pages === 3)).toBe(true);
    expect(progress[0]?.start_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // Progress never goes back.
    const pages = progress.map((p) => p.extracted_pages);
    expect([...pages].sort((a, b) => a - b)).toEqual(pages);

    expect(done).toMatchObject({ file_name: 'report.pdf', state: 'done', err_msg: '' });
    expect(done?.full_zip_url).toMatch(new RegExp(`^${stub.origin}/cdn/pdf/[0-9a-f-]+\\.zip$`));
    const { status, zip } = await download(done?.full_zip_url ?? '');
    expect(status).toBe(200);
    const archive = unzipBuffer(zip);
    expect(archive.sound).toBe(true);
    const listName = archive.names.find((name) => name.endsWith('_content_list.json')) ?? '';
    expect(archive.names).toEqual(
      expect.arrayContaining([
        'full.md',
        'layout.json',
        listName,
        expect.stringMatching(/_origin\.pdf$/),
      ]),
    );
    expect(archive.bytes(archive.names.find((n) => n.endsWith('_origin.pdf')) ?? '')).toEqual(pdf);

    const markdown = archive.text('full.md');
    expect(markdown).toContain('# Harvest Report');
    for (const words of [
      'Rice prices fell sharply in Surabaya.',
      'Fishermen in Makassar',
      'irrigation canals',
    ]) {
      expect(markdown).toContain(words);
    }
    const list = JSON.parse(archive.text(listName)) as Array<Record<string, unknown>>;
    expect(list).toEqual([
      expect.objectContaining({ type: 'text', text: 'Harvest Report', text_level: 1, page_idx: 0 }),
      expect.objectContaining({
        type: 'text',
        text: 'Rice prices fell sharply in Surabaya.',
        page_idx: 0,
      }),
      expect.objectContaining({ text: 'Fishermen in Makassar reported calm seas.', page_idx: 1 }),
      expect.objectContaining({
        text: 'The ministry promised new irrigation canals.',
        page_idx: 2,
      }),
    ]);
    for (const entry of list) {
      const box = entry.bbox as number[];
      expect(box).toHaveLength(4);
      expect(box.every((value) => value >= 0 && value <= 1000)).toBe(true);
    }

    expect(stub.stats()).toMatchObject({ batchesCreated: 1, uploads: 1, downloads: 1 });
    expect(stub.stats().polls).toBe(seen.length + 1);
    expect(stub.stats().files).toEqual([
      expect.objectContaining({
        fileName: 'report.pdf',
        state: 'done',
        totalPages: 3,
        extractedPages: 3,
        uploadedBytes: pdf.length,
        options: {
          language: 'en',
          enable_formula: true,
          enable_table: true,
          model_version: 'pipeline',
        },
      }),
    ]);
  });

  it('processes the files of one batch independently, with their data ids', async () => {
    const { body } = await client.call<{ batch_id: string; file_urls: string[] }>(
      'POST',
      '/file-urls/batch',
      {
        files: [
          { name: 'a.pdf', data_id: 'doc-a', is_ocr: true },
          { name: 'b.pdf', data_id: 'doc-b' },
        ],
      },
    );
    const [urlA, urlB] = body.data.file_urls;
    await client.upload(urlB ?? '', await numberedPdf(2));
    const waiting = await client.waitForBatch(
      body.data.batch_id,
      (items) => item(items, 'b.pdf').state === 'done',
    );
    expect(item(waiting, 'a.pdf')).toMatchObject({ state: 'waiting-file', data_id: 'doc-a' });

    await client.upload(urlA ?? '', await numberedPdf(1));
    const items = await client.waitForBatch(body.data.batch_id, settled);
    expect(items.map((entry) => [entry.file_name, entry.data_id, entry.state])).toEqual([
      ['a.pdf', 'doc-a', 'done'],
      ['b.pdf', 'doc-b', 'done'],
    ]);
    const b = unzipBuffer((await download(item(items, 'b.pdf').full_zip_url ?? '')).zip);
    expect(b.text('full.md')).toBe('This is page number 1.\n\nThis is page number 2.\n');
    expect(stub.stats().files.find((f) => f.fileName === 'a.pdf')?.options).toEqual({
      is_ocr: true,
    });
  });

  it('runs URL tasks on files it serves itself, and polls them by task id', async () => {
    const url = stub.hostFile(
      'remote doc.pdf',
      await textPdf([{ lines: ['Served by the double.'] }]),
    );
    const created = await client.call<{ task_id: string }>('POST', '/extract/task', {
      url,
      data_id: 'remote-1',
      language: 'en',
    });
    expect(created.body).toMatchObject({
      code: 0,
      msg: 'ok',
      data: { task_id: expect.any(String) },
    });
    const taskId = created.body.data.task_id;
    let task: BatchItem & { task_id: string };
    for (;;) {
      const polled = await client.call<BatchItem & { task_id: string }>(
        'GET',
        `/extract/task/${taskId}`,
      );
      task = polled.body.data;
      if (task.state === 'done' || task.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(task).toMatchObject({
      task_id: taskId,
      data_id: 'remote-1',
      state: 'done',
      err_msg: '',
    });
    expect(unzipBuffer((await download(task.full_zip_url ?? '')).zip).text('full.md')).toContain(
      'Served by the double.',
    );
    expect(stub.stats().files[0]).toMatchObject({
      fileName: 'remote doc.pdf',
      options: { language: 'en' },
    });

    const batch = await client.call<{ batch_id: string }>('POST', '/extract/task/batch', {
      files: [{ url, data_id: 'one' }, { url: stub.hostFile('two.pdf', await numberedPdf(1)) }],
    });
    const items = await client.waitForBatch(batch.body.data.batch_id, settled);
    expect(items.map((entry) => [entry.file_name, entry.state])).toEqual([
      ['remote doc.pdf', 'done'],
      ['two.pdf', 'done'],
    ]);
    expect(stub.stats()).toMatchObject({ urlTasksCreated: 3, batchesCreated: 1 });
  });

  it('refuses URLs of other hosts and fetches nothing', async () => {
    for (const url of [
      'https://example.com/doc.pdf',
      `${stub.origin}/files/not-hosted.pdf`,
      'not a url',
    ]) {
      const { status, body } = await client.call('POST', '/extract/task', { url });
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: -10002, msg: expect.stringContaining('serves itself') });
    }
    const batch = await client.call('POST', '/extract/task/batch', {
      files: [{ url: 'http://10.0.0.1/x.pdf' }],
    });
    expect(batch.body.code).toBe(-10002);
    expect(stub.stats()).toMatchObject({ urlTasksCreated: 0, batchesCreated: 0, files: [] });
  });

  it('keeps an image as one page with the picture, and fails what it cannot read with MinerU codes', async () => {
    const names = ['scan.png', 'notes.txt', 'empty.pdf', 'slides.pptx'];
    const batch = await client.createBatch(names);
    const bodies = [
      PNG_PIXEL,
      Buffer.from('plain words'),
      Buffer.alloc(0),
      Buffer.from('PK\x03\x04rest', 'latin1'),
    ];
    await Promise.all(
      batch.file_urls.map((url, index) => client.upload(url, bodies[index] ?? Buffer.alloc(0))),
    );
    const items = await client.waitForBatch(batch.batch_id, settled);

    const image = unzipBuffer((await download(item(items, 'scan.png').full_zip_url ?? '')).zip);
    const imageName = image.names.find((name) => name.startsWith('images/')) ?? '';
    expect(imageName).toMatch(/^images\/[0-9a-f]{64}\.png$/);
    expect(image.bytes(imageName)).toEqual(PNG_PIXEL);
    expect(image.text('full.md')).toBe(`![](${imageName})\n`);

    expect(item(items, 'notes.txt')).toMatchObject({
      state: 'failed',
      err_code: -60002,
      err_msg: 'failed to get matching file format',
    });
    expect(item(items, 'empty.pdf')).toMatchObject({
      state: 'failed',
      err_code: -60004,
      err_msg: 'empty file',
    });
    expect(item(items, 'slides.pptx')).toMatchObject({ state: 'failed', err_code: -60015 });
    expect(item(items, 'notes.txt')).not.toHaveProperty('full_zip_url');
  });

  it('fails a file over the page or size limit, and a PDF poppler cannot read', async () => {
    stub.configure({ maxPages: 2, maxFileBytes: 5000 });
    const batch = await client.createBatch(['long.pdf', 'huge.pdf', 'broken.pdf']);
    await client.upload(batch.file_urls[0] ?? '', await numberedPdf(3));
    await client.upload(
      batch.file_urls[1] ?? '',
      Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(6000, 32)]),
    );
    await client.upload(
      batch.file_urls[2] ?? '',
      Buffer.from('%PDF-1.7\nthis is not a real PDF body'),
    );
    const items = await client.waitForBatch(batch.batch_id, settled);
    expect(item(items, 'long.pdf')).toMatchObject({ state: 'failed', err_code: -60006 });
    expect(item(items, 'huge.pdf')).toMatchObject({
      state: 'failed',
      err_code: -60005,
      err_msg: 'file size exceeds limit',
    });
    expect(item(items, 'broken.pdf')).toMatchObject({ state: 'failed', err_code: -60003 });
  });

  it('answers a missing or wrong token with the gateway error, HTTP 401', async () => {
    const missing = await fetch(`${stub.url}/file-urls/batch`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      success: false,
      msgCode: 'A0202',
      msg: 'user authenticate failed',
      data: null,
    });
    const wrong = await mineruClient(stub, 'not-the-token').call('GET', '/extract-results/batch/x');
    expect(wrong.status).toBe(401);
    expect(stub.stats()).toMatchObject({ authFailures: 2, polls: 0 });
  });

  it('answers bad parameters with 400 and code -500, unknown ids with code -60012', async () => {
    for (const body of [
      {},
      { files: [] },
      { files: [{ name: '' }] },
      { files: [{ name: 'a.pdf' }], extra_formats: ['exe'] },
      // What the double checks of the options: MinerU's languages and models, no unknown field.
      { files: [{ name: 'a.pdf' }], language: 'english' },
      { files: [{ name: 'a.pdf' }], model_version: 'gpt' },
      { files: [{ name: 'a.pdf' }], enable_formulas: true },
      { files: [{ name: 'a.pdf', ocr: true }] },
    ]) {
      const answer = await client.call('POST', '/file-urls/batch', body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        code: -500,
        msg: expect.stringContaining('parameter error'),
      });
    }
    const raw = await fetch(`${stub.url}/file-urls/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '{not json',
    });
    expect(raw.status).toBe(400);
    stub.configure({ maxFilesPerBatch: 1 });
    const tooMany = await client.call('POST', '/file-urls/batch', {
      files: [{ name: 'a.pdf' }, { name: 'b.pdf' }],
    });
    expect(tooMany.body.code).toBe(-500);
    stub.configure({ maxFilesPerBatch: 200 });

    const unknownBatch = await client.pollBatch('no-such-batch');
    expect(unknownBatch).toMatchObject({
      status: 200,
      body: { code: -60012, msg: 'task not found', data: null },
    });
    const unknownTask = await client.call('GET', '/extract/task/no-such-task');
    expect(unknownTask.body.code).toBe(-60012);
    expect(stub.stats().batchesCreated).toBe(0);
  });

  it('guards its presigned upload URLs as object storage does', async () => {
    const batch = await client.createBatch(['guarded.pdf']);
    const url = batch.file_urls[0] ?? '';
    const pdf = await numberedPdf(1);

    const typed = await client.upload(url, pdf, { headers: { 'content-type': 'application/pdf' } });
    expect(typed.status).toBe(403);
    expect(await typed.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const tampered = await client.upload(url.replace(/Signature=[0-9a-f]/, 'Signature=x'), pdf);
    expect(tampered.status).toBe(403);
    const expired = new URL(url);
    expired.searchParams.set('Expires', '1000');
    expect((await client.upload(expired.toString(), pdf)).status).toBe(403);
    expect(stub.stats()).toMatchObject({ uploads: 0, uploadsRejected: 3 });

    expect((await client.upload(url, pdf)).status).toBe(200);
    const items = await client.waitForBatch(batch.batch_id, settled);
    expect(items[0]?.state).toBe('done');
    // A second PUT of the same file is stored again but starts nothing new.
    expect((await client.upload(url, pdf)).status).toBe(200);
    expect(stub.stats()).toMatchObject({
      uploads: 2,
      files: [expect.objectContaining({ state: 'done' })],
    });
  });

  it('answers 404 for archives and hosted files it does not have', async () => {
    const missing = await fetch(`${stub.origin}/cdn/pdf/nothing.zip`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<Code>NoSuchKey</Code>');
    expect((await fetch(`${stub.origin}/files/nothing.pdf`)).status).toBe(404);
    expect(stub.stats().downloads).toBe(0);
  });
});
