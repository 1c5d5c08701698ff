/**
 * The error cases the spec leaves open, as decided: bad uploads and parameters (400, 413, 415),
 * an unreachable or failing model server (502, 503), a client that goes away; and the temporary
 * directory is empty after every one of them. A failing final merge degrades instead
 * (structured-output.test.ts).
 */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { freePort, waitFor } from '@pelita/testenv';
import {
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

describe('error answers', () => {
  let stub: LlmStub;
  let service: SummarizerUnderTest;
  const extra: SummarizerUnderTest[] = [];
  const post = (path: string, form: FormData, target = service) =>
    postForm(`${target.url}${path}`, form);

  beforeAll(async () => {
    stub = await startLlmStub();
    service = await startSummarizer({
      BASE_URL_LOCAL: stub.url,
      MAX_UPLOAD_BYTES: '4096',
      LLM_MAX_RETRIES: '0',
    });
  });
  afterAll(async () => {
    for (const running of [service, ...extra]) await running.stop();
    await stub.close();
  });
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ latencyMs: 0 });
  });
  afterEach(async () => {
    for (const running of [service, ...extra]) {
      await waitFor(async () => (await running.leftovers()).length === 0, 'no temporary files');
    }
  });

  describe('invalid input: 400 with the JSON error body, before any model call', () => {
    it.each(['/summarize', '/extract_entities'])('%s without a file', async (path) => {
      const form = new FormData();
      form.append('chunk_size', '100');
      const res = await post(path, form);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'invalid_request',
        message: expect.stringContaining('body.file'),
        details: [{ in: 'body', path: 'file', message: expect.stringContaining('`file`') }],
      });
      expect(stub.stats().chatCompletions).toBe(0);
    });

    it.each<[string, string | Uint8Array, string]>([
      ['an empty file', '', 'empty_file'],
      ['a file of blanks only', ' \n\t \r\n', 'empty_file'],
      [
        'a binary file',
        new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]),
        'not_text',
      ],
      ['UTF-8 with NUL bytes', 'a\u0000b', 'not_text'],
    ])('%s', async (_name, content, code) => {
      for (const path of ['/summarize', '/extract_entities']) {
        const res = await post(path, textForm(content));
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe(code);
      }
      expect(stub.stats().chatCompletions).toBe(0);
    });

    it.each<[string, Record<string, string>]>([
      ['chunk_size not a number', { chunk_size: 'ten' }],
      ['chunk_size zero', { chunk_size: '0' }],
      ['chunk_size negative', { chunk_size: '-5' }],
      ['chunk_size fractional', { chunk_size: '1.5' }],
      ['chunk_size empty', { chunk_size: '' }],
      ['target_context not a number', { target_context: 'lots' }],
      ['enable_ner not a boolean', { enable_ner: 'maybe' }],
    ])('%s', async (_name, fields) => {
      const res = await post('/summarize', textForm(sentences(3), fields));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details[0].path).toBe(Object.keys(fields)[0]);
    });

    it('accepts enable_ner in any letter case', async () => {
      const res = await post('/summarize', textForm(sentences(3), { enable_ner: 'FALSE' }));
      expect(res.status).toBe(200);
      expect(stub.stats().calls.every((call) => !call.asked.includes('named_entities'))).toBe(true);
    });

    it('accepts UTF-16 text with a byte order mark', async () => {
      const utf16 = Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from(sentences(3), 'utf16le'),
      ]);
      const res = await post('/summarize', textForm(new Uint8Array(utf16)));
      expect(res.status).toBe(200);
      expect(res.body.summarize_chunk[0].original_text).toBe(sentences(3));
    });

    it('answers 413 for a file over MAX_UPLOAD_BYTES', async () => {
      const res = await post('/summarize', textForm('word '.repeat(1000)));
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('answers 415 for a body that is not multipart', async () => {
      const res = await fetch(`${service.url}/summarize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ file: { path: '/etc/passwd' }, chunk_size: 10 }),
      });
      expect(res.status).toBe(415);
      expect(((await res.json()) as any).error.code).toBe('unsupported_media_type');
    });

    it('answers 400 for a file in another field, two files, or a broken form', async () => {
      const other = new FormData();
      other.append('document', new Blob(['Some text.']), 'a.txt');
      expect((await post('/summarize', other)).status).toBe(400);

      const two = textForm('One text.');
      two.append('file', new Blob(['Another text.']), 'b.txt');
      const twoFiles = await post('/summarize', two);
      expect(twoFiles.status).toBe(400);
      expect(twoFiles.body.error.code).toBe('invalid_request');

      const broken = await fetch(`${service.url}/summarize`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
        body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunfinished',
      });
      expect(broken.status).toBe(400);
    });
  });

  describe('model server failures', () => {
    it('answers 503 llm_unreachable when the model server is unreachable', async () => {
      const down = await startSummarizer({
        BASE_URL_LOCAL: `http://127.0.0.1:${await freePort()}/v1`,
        LLM_MAX_RETRIES: '0',
      });
      extra.push(down);
      for (const path of ['/summarize', '/extract_entities']) {
        const res = await post(path, textForm(sentences(3)), down);
        expect(res.status).toBe(503);
        expect(res.body.error).toEqual({
          code: 'llm_unreachable',
          message: expect.stringMatching(/failed: the model server is unreachable$/),
        });
      }
    });

    it('answers 502 llm_error when every chunk gets an error status, 503 for a 503', async () => {
      stub.setFaults([{ fault: { kind: 'status', status: 500 } }]);
      const res = await post('/summarize', textForm(sentences(30), { chunk_size: 100 }));
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('llm_error');
      expect(res.body.error.message).toMatch(/^all 3 chunks failed: the model server answered 500/);

      stub.setFaults([{ fault: { kind: 'status', status: 503 } }]);
      const unavailable = await post('/extract_entities', textForm(sentences(3)));
      expect(unavailable.status).toBe(503);
      expect(unavailable.body.error.code).toBe('llm_unavailable');
    });

    it('answers 502 llm_error for a model the server does not have', async () => {
      const wrong = await startSummarizer({
        BASE_URL_LOCAL: stub.url,
        MODEL_LOCAL: 'no-such-model',
      });
      extra.push(wrong);
      const res = await post('/summarize', textForm(sentences(3)), wrong);
      expect(res.status).toBe(502);
      expect(res.body.error.message).toContain('404');
    });

    it('keeps going without the key-point entities when only their extraction fails', async () => {
      stub.setFaults([{ match: /extract named entities/, fault: { kind: 'status', status: 500 } }]);
      const res = await post('/summarize', textForm(`Budi Santoso met Ani. ${sentences(3)}`));
      expect(res.status).toBe(200);
      expect(res.body.final_summary.named_entities.aggregated_key_points_entities.PER).toEqual([]);
      expect(res.body.final_summary.named_entities.chunk_entities_merged.PER).toEqual([
        'Budi Santoso',
      ]);
    });
  });

  it('cancels the remaining model calls when the client goes away', async () => {
    const slow = await startSummarizer({ BASE_URL_LOCAL: stub.url, LLM_MAX_CONCURRENCY: '1' });
    extra.push(slow);
    stub.configure({ latencyMs: 150 });
    const controller = new AbortController();
    const request = fetch(`${slow.url}/summarize`, {
      method: 'POST',
      body: textForm(sentences(100), { chunk_size: 10 }),
      signal: controller.signal,
    });
    await waitFor(() => stub.stats().chatCompletions >= 1, 'a chat completion');
    controller.abort();
    await expect(request).rejects.toThrow();
    // The positive signal first: the call in flight was aborted; then nothing else was sent.
    const aborted = /summarizer_llm_calls_total\{operation="chunk",outcome="aborted"\} 1/;
    await waitFor(async () => aborted.test(await slow.metrics()), 'the aborted call counted');
    expect(stub.stats().chatCompletions).toBeLessThan(5);
  });
});
