/**
 * `POST /api/v1/pdfs` and `GET /api/v1/tasks/{task_id}/status` against real Redis and MinIO:
 * the record, the staged upload and the queue message a worker reads; every refusal.
 */
import { createStatusStore } from '../../../src/status/status-store';
import { stagedUploadKey } from '../../../src/storage/document-store';
import { textPdf } from '../support/documents';
import {
  formOf,
  isolatedNames,
  PNG,
  sharedState,
  startApi,
  type ApiUnderTest,
  bodyOf,
} from './support/api-under-test';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/v1/pdfs', () => {
  const names = isolatedNames();
  const state = sharedState(names);
  let api: ApiUnderTest;
  let pdf: Buffer;
  beforeAll(async () => {
    api = await startApi(names, { MAX_UPLOAD_BYTES: String(64 * 1024) });
    pdf = await textPdf(1, () => 'An annual report');
  });
  afterAll(async () => {
    await api?.stop();
    await state.cleanUp();
  });

  const post = (query: string, body?: FormData | string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/api/v1/pdfs${query}`, {
      method: 'POST',
      ...(body !== undefined ? { body } : {}),
      headers,
    });
  const statusOf = (taskId: string) => fetch(`${api.url}/api/v1/tasks/${taskId}/status`);

  it('queues an upload: pending record, the file staged in S3, the job in the queue', async () => {
    const res = await post(
      '',
      formOf([{ name: 'annual report.pdf', bytes: pdf }], {
        metadata_document: JSON.stringify({ team: 'legal', year: 2025 }),
      }),
    );
    expect(res.status).toBe(200);
    const body = await bodyOf(res);
    expect(body).toEqual({
      task_id: expect.stringMatching(UUID),
      status: 'pending',
      processing_type: 'cloud',
    });

    const status = await statusOf(body.task_id);
    expect(status.status).toBe(200);
    expect(await bodyOf(status)).toEqual({
      task_id: body.task_id,
      status: 'pending',
      stage: 'pending',
      progress_pct: 0,
      stage_detail: 'waiting in the queue',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/),
    });

    const key = stagedUploadKey(body.task_id, 0);
    expect((await state.objectBytes(key)).equals(pdf)).toBe(true);
    expect(await state.jobOf(body.task_id)).toEqual({
      task_id: body.task_id,
      processing: 'cloud',
      type_ocr: 'ekstrak_only',
      representasi_count: 3,
      inputs: [{ kind: 'upload', key, name: 'annual report.pdf' }],
      pdf_name: 'annual report.pdf',
      metadata_document: { team: 'legal', year: 2025 },
      queued_at: expect.stringMatching(/Z$/),
    });
  });

  it('queues a URL with a custom task id and the query options; nothing is staged', async () => {
    const res = await post(
      `?url_file=${encodeURIComponent('https://files.example.com/reports/q3%20summary.pdf?sig=abc')}` +
        '&task_id=custom.Task_1-a&type_ocr=representasi&representasi_count=7&processing=local',
    );
    expect(res.status).toBe(200);
    expect(await bodyOf(res)).toEqual({
      task_id: 'custom.Task_1-a',
      status: 'pending',
      processing_type: 'local',
    });
    expect(await state.jobOf('custom.Task_1-a')).toMatchObject({
      processing: 'local',
      type_ocr: 'representasi',
      representasi_count: 7,
      inputs: [{ kind: 'url', url: 'https://files.example.com/reports/q3%20summary.pdf?sig=abc' }],
      pdf_name: 'q3 summary.pdf',
    });
    expect(await state.objectKeys('ocr-uploads/custom.Task_1-a/')).toEqual([]);
  });

  it('names a URL task document.pdf when the URL has no file name', async () => {
    const res = await post('?url_file=https://files.example.com/');
    const { task_id } = await bodyOf(res);
    expect((await state.jobOf(task_id)).pdf_name).toBe('document.pdf');
  });

  it('takes a raw JSON body as the metadata when url_file carries the document', async () => {
    const res = await post(
      '?url_file=http://files.example.com/a.pdf',
      JSON.stringify({ source: 'crm', tags: ['x'] }),
      { 'content-type': 'application/json' },
    );
    expect(res.status).toBe(200);
    const { task_id } = await bodyOf(res);
    expect((await state.jobOf(task_id)).metadata_document).toEqual({ source: 'crm', tags: ['x'] });

    const without = await post('', JSON.stringify({ source: 'crm' }), {
      'content-type': 'application/json',
    });
    expect(without.status).toBe(400);
    expect((await bodyOf(without)).error.code).toBe('missing_input');

    const array = await post('?url_file=http://files.example.com/a.pdf', '[1,2]', {
      'content-type': 'application/json',
    });
    expect(array.status).toBe(400);
    expect((await bodyOf(array)).error.message).toMatch(/JSON object/);
  });

  it('accepts images and office files; a name without extension gets one', async () => {
    for (const [name, bytes] of [
      ['scan.png', PNG],
      ['sheet.csv', Buffer.from('a,b\n1,2\n')],
    ] as const) {
      const res = await post('', formOf([{ name, bytes }]));
      expect(res.status).toBe(200);
      const { task_id } = await bodyOf(res);
      expect((await state.jobOf(task_id)).pdf_name).toBe(name);
    }
    // The worker goes by the extension: a name without one gets it from the bytes.
    const bare = await post('', formOf([{ name: 'scan', bytes: pdf }]));
    expect(bare.status).toBe(200);
    const { task_id } = await bodyOf(bare);
    expect((await state.jobOf(task_id)).pdf_name).toBe('scan.pdf');
    // A part without a file name is a text field, not a file.
    const unnamed = await post('', formOf([{ name: '', bytes: pdf }]));
    expect(unnamed.status).toBe(400);
  });

  it('refuses a taken task id with 409 and leaves the first task as it was', async () => {
    const first = await post('?task_id=taken-1', formOf([{ name: 'a.pdf', bytes: pdf }]));
    expect(first.status).toBe(200);
    const other = await textPdf(1, () => 'Something else');
    const again = await post('?task_id=taken-1', formOf([{ name: 'b.pdf', bytes: other }]));
    expect(again.status).toBe(409);
    expect((await bodyOf(again)).error.code).toBe('task_exists');
    expect((await state.objectBytes(stagedUploadKey('taken-1', 0))).equals(pdf)).toBe(true);
    expect((await state.messages()).filter((m) => m.taskId === 'taken-1')).toHaveLength(1);
  });

  it.each([
    ['no input', '', undefined, 400, 'missing_input'],
    ['both inputs', '?url_file=https://x.example/a.pdf', 'file', 400, 'conflicting_input'],
    ['an ftp URL', '?url_file=ftp://x.example/a.pdf', undefined, 400, 'invalid_request'],
    ['a relative URL', '?url_file=/a.pdf', undefined, 400, 'invalid_request'],
    [
      'a bad task id',
      '?url_file=https://x.example/a.pdf&task_id=a/b',
      undefined,
      400,
      'invalid_request',
    ],
    [
      'a long task id',
      `?url_file=https://x.example/a.pdf&task_id=${'a'.repeat(129)}`,
      undefined,
      400,
      'invalid_request',
    ],
    [
      'an unknown type_ocr',
      '?url_file=https://x.example/a.pdf&type_ocr=full',
      undefined,
      400,
      'invalid_request',
    ],
    [
      'representasi_count 51',
      '?url_file=https://x.example/a.pdf&representasi_count=51',
      undefined,
      400,
      'invalid_request',
    ],
    [
      'an unknown processing',
      '?url_file=https://x.example/a.pdf&processing=gpu',
      undefined,
      400,
      'invalid_request',
    ],
  ])('refuses %s', async (_what, query, withFile, status, code) => {
    const before = await state.queueLength();
    const res = await post(query, withFile ? formOf([{ name: 'a.pdf', bytes: pdf }]) : undefined);
    expect(res.status).toBe(status);
    expect((await bodyOf(res)).error.code).toBe(code);
    expect(await state.queueLength()).toBe(before);
  });

  it('refuses metadata_document that is not a JSON object', async () => {
    for (const metadata of ['not json', '[1]', '"text"', 'null']) {
      const res = await post(
        '',
        formOf([{ name: 'a.pdf', bytes: pdf }], { metadata_document: metadata }),
      );
      expect(res.status).toBe(400);
      expect((await bodyOf(res)).error.code).toBe('invalid_request');
    }
  });

  it('refuses files it cannot read, with a JSON error and nothing queued', async () => {
    const before = await state.queueLength();
    const cases: Array<[string, Buffer | string, number, string]> = [
      ['notes.txt', 'plain text', 415, 'unsupported_file_type'],
      ['program.exe', 'MZ\x90\x00', 415, 'unsupported_file_type'],
      ['photo.png', 'not a png at all', 415, 'unsupported_file_type'],
      ['report.pdf', 'not a pdf', 415, 'unsupported_file_type'],
      ['empty.pdf', '', 400, 'empty_file'],
      ['big.pdf', Buffer.concat([pdf, Buffer.alloc(64 * 1024)]), 413, 'payload_too_large'],
    ];
    for (const [name, bytes, status, code] of cases) {
      const res = await post('', formOf([{ name, bytes }]));
      expect([name, res.status]).toEqual([name, status]);
      expect((await bodyOf(res)).error.code).toBe(code);
    }
    expect(await state.queueLength()).toBe(before);
  });

  it('refuses malformed bodies with a 4xx JSON error', async () => {
    const broken = await post('', '--xyz\r\nContent-Disposition: form-data; name="file"', {
      'content-type': 'multipart/form-data; boundary=xyz',
    });
    expect(broken.status).toBe(400);
    expect((await bodyOf(broken)).error.code).toBe('invalid_request');

    const text = await post('?url_file=https://x.example/a.pdf', 'hello', {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    expect((await bodyOf(text)).error.code).toBe('unsupported_media_type');

    const badJson = await post('?url_file=https://x.example/a.pdf', '{nope', {
      'content-type': 'application/json',
    });
    expect(badJson.status).toBe(400);

    const twoFiles = await post(
      '',
      formOf([
        { name: 'a.pdf', bytes: pdf },
        { name: 'b.pdf', bytes: pdf },
      ]),
    );
    expect(twoFiles.status).toBe(400);
    const wrongField = await post('', formOf([{ field: 'files', name: 'a.pdf', bytes: pdf }]));
    expect(wrongField.status).toBe(400);
  });

  it('answers 404 task_not_found for an unknown task', async () => {
    const res = await statusOf('no-such-task');
    expect(res.status).toBe(404);
    expect((await bodyOf(res)).error.code).toBe('task_not_found');
  });

  it('hides error fields unless the task failed', async () => {
    const res = await post('?url_file=https://x.example/a.pdf&task_id=status-shape');
    expect(res.status).toBe(200);
    const statuses = createStatusStore(state.redis, {
      prefix: names.REDIS_KEY_PREFIX,
      keep: 1000,
    });
    // A worker's writes, as the worker makes them.
    await statuses.update('status-shape', {
      status: 'processing',
      stage: 'queued',
      progress_pct: 5,
      error: 'stale',
    });
    expect(await (await statusOf('status-shape')).json()).not.toHaveProperty('error');
    await statuses.update('status-shape', {
      status: 'failed',
      error: 'Task timeout',
      error_code: 504,
    });
    expect(await (await statusOf('status-shape')).json()).toMatchObject({
      status: 'failed',
      error: 'Task timeout',
      error_code: 504,
    });
  });

  it('is answered by any API replica: a second instance on the same Redis knows the task', async () => {
    const res = await post('', formOf([{ name: 'a.pdf', bytes: pdf }]));
    const { task_id } = await bodyOf(res);
    const second = await startApi(names);
    try {
      const status = await fetch(`${second.url}/api/v1/tasks/${task_id}/status`);
      expect(status.status).toBe(200);
      expect(await bodyOf(status)).toMatchObject({ task_id, status: 'pending' });
      // And it refuses the same custom id the first one took.
      const again = await fetch(
        `${second.url}/api/v1/pdfs?task_id=taken-1&url_file=https://x.example/a.pdf`,
        {
          method: 'POST',
        },
      );
      expect(again.status).toBe(409);
    } finally {
      await second.stop();
    }
  });
});

describe('POST /api/v1/pdfs on an install with one engine', () => {
  const names = isolatedNames();
  const state = sharedState(names);
  afterAll(() => state.cleanUp());

  it('refuses the engine that is not configured, naming the one that is', async () => {
    const api = await startApi(names, { OCR_ENGINE_CLOUD_URL: '' });
    try {
      const res = await fetch(
        `${api.url}/api/v1/pdfs?url_file=https://x.example/a.pdf&processing=cloud`,
        { method: 'POST' },
      );
      expect(res.status).toBe(400);
      const { error } = await bodyOf(res);
      expect(error.code).toBe('engine_not_configured');
      expect(error.message).toMatch(/processing=local/);
      const local = await fetch(
        `${api.url}/api/v1/pdfs?url_file=https://x.example/a.pdf&processing=local`,
        { method: 'POST' },
      );
      expect(local.status).toBe(200);
    } finally {
      await api.stop();
    }
  });

  it('runs a request without processing on the engine the install has: local without a cloud engine', async () => {
    const api = await startApi(names, { OCR_ENGINE_CLOUD_URL: '' });
    try {
      const res = await fetch(`${api.url}/api/v1/pdfs?url_file=https://x.example/b.pdf`, {
        method: 'POST',
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'pending', processing_type: 'local' });
      // The bulk endpoint decides the same way.
      const bulk = await fetch(`${api.url}/api/v1/pdfs/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url_files: ['https://x.example/c.pdf'] }),
      });
      expect(bulk.status).toBe(200);
      expect(((await bulk.json()) as any).tasks[0]).toMatchObject({ processing_type: 'local' });
    } finally {
      await api.stop();
    }
  });

  it('runs a request without processing on the cloud engine when the install has only that one', async () => {
    const api = await startApi(names, { OCR_ENGINE_LOCAL_URL: '' });
    try {
      const res = await fetch(`${api.url}/api/v1/pdfs?url_file=https://x.example/d.pdf`, {
        method: 'POST',
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ processing_type: 'cloud' });
    } finally {
      await api.stop();
    }
  });

  it('says no engine is configured when neither is', async () => {
    const api = await startApi(names, { OCR_ENGINE_CLOUD_URL: '', OCR_ENGINE_LOCAL_URL: '' });
    try {
      const res = await fetch(
        `${api.url}/api/v1/pdfs?url_file=https://x.example/a.pdf&processing=local`,
        {
          method: 'POST',
        },
      );
      expect(res.status).toBe(400);
      expect((await bodyOf(res)).error.message).toMatch(/No OCR engine/);
    } finally {
      await api.stop();
    }
  });
});
