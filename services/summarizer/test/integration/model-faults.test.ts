/**
 * Every fault the LLM stand-in can script, seen through `/summarize`: transport-level retries
 * (`LLM_MAX_RETRIES`, the SDK's backoff, retry hints), the three parse attempts, the clean-up of
 * think tags and code fences, the JSON repair step (with a server that ignores the schema sent;
 * structured-output.test.ts covers the other servers), and `LLM_TIMEOUT`.
 */
import { startLlmStub, type FaultInput, type LlmStub } from '@pelita/llm-stub';
import { SummaryFileSchema } from '../../src/output-files';
import {
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

/** Stage-1 calls only: the final merge and the key-point entities stay clean. */
const STAGE_ONE = /one part of a longer document/;
const TEXT = sentences(8);

describe('model faults', () => {
  let stub: LlmStub;
  const services = new Map<string, SummarizerUnderTest>();
  /** One summarizer per setting combination, reused across tests. */
  const service = async (env: Record<string, string> = {}) => {
    const key = JSON.stringify(env);
    let running = services.get(key);
    if (!running) {
      running = await startSummarizer({ BASE_URL_LOCAL: stub.url, ...env });
      services.set(key, running);
    }
    return running;
  };
  const summarize = async (env: Record<string, string> = {}) =>
    postForm(`${(await service(env)).url}/summarize`, textForm(TEXT));
  const stageOneStatuses = () =>
    stub
      .stats()
      .calls.filter((call) => STAGE_ONE.test(call.prompt))
      .map((call) => call.status);
  const fault = (input: FaultInput, times?: number) =>
    stub.setFaults([{ match: STAGE_ONE, ...(times === undefined ? {} : { times }), fault: input }]);

  beforeAll(async () => {
    stub = await startLlmStub();
  });
  afterAll(async () => {
    for (const running of services.values()) await running.stop();
    await stub.close();
  });
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ structuredOutput: 'honour' });
  });

  describe('transport and rate-limit level: LLM_MAX_RETRIES with the client\u2019s backoff', () => {
    it('retries a 429 as the retry-after header says, and succeeds within the retries', async () => {
      fault({ kind: 'status', status: 429, retryAfterSeconds: 0.05 }, 2);
      const started = Date.now();
      const res = await summarize({ LLM_MAX_RETRIES: '2' });
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([429, 429, 200]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      expect(await (await service({ LLM_MAX_RETRIES: '2' })).metrics()).toMatch(
        /summarizer_llm_http_attempts_total\{status="429"\} 2/,
      );
    });

    it('gives up after LLM_MAX_RETRIES: 503 llm_rate_limited when the only chunk fails', async () => {
      fault({ kind: 'status', status: 429, retryAfterMs: 1 });
      const res = await summarize({ LLM_MAX_RETRIES: '2' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('llm_rate_limited');
      expect(res.body.error.message).toMatch(/^all 1 chunks failed: the model server answered 429/);
      expect(stageOneStatuses()).toEqual([429, 429, 429]);
    });

    it.each([500, 503])('retries a %i and succeeds', async (status) => {
      fault({ kind: 'status', status, retryAfterMs: 1 }, 1);
      const res = await summarize({ LLM_MAX_RETRIES: '1' });
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([status, 200]);
    });

    it('retries a dropped connection', async () => {
      fault({ kind: 'reset' }, 1);
      const res = await summarize({ LLM_MAX_RETRIES: '1' });
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([0, 200]);
    });

    it('shortens a retry hint longer than LLM_TIMEOUT to LLM_TIMEOUT', async () => {
      fault({ kind: 'status', status: 429, retryAfterSeconds: 3600 }, 1);
      const started = Date.now();
      const res = await summarize({ LLM_MAX_RETRIES: '1', LLM_TIMEOUT: '0.3' });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(stageOneStatuses()).toEqual([429, 200]);
    });

    it('applies LLM_TIMEOUT per attempt: a slow answer is retried, then 504 llm_timeout', async () => {
      fault({ kind: 'latency', ms: 1000 }, 1);
      const retried = await summarize({ LLM_MAX_RETRIES: '1', LLM_TIMEOUT: '0.25' });
      expect(retried.status).toBe(200);

      fault({ kind: 'latency', ms: 1000 });
      const res = await summarize({ LLM_MAX_RETRIES: '0', LLM_TIMEOUT: '0.25' });
      expect(res.status).toBe(504);
      expect(res.body.error.code).toBe('llm_timeout');
    });
  });

  describe('answer level (a server that ignores response_format): three parse attempts per call', () => {
    beforeEach(() => stub.configure({ structuredOutput: 'ignore' }));

    it('asks again after an answer that is not JSON, and succeeds on the third attempt', async () => {
      fault({ kind: 'malformed' }, 2);
      const res = await summarize();
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([200, 200, 200]);
      expect(SummaryFileSchema.parse(res.body).summarize_chunk[0]?.summary).toBe(sentences(2));
      expect(await (await service()).metrics()).toMatch(
        /summarizer_llm_calls_total\{operation="chunk",outcome="invalid_output"\} 2/,
      );
    });

    it('fails the call after three unusable answers: 502 llm_invalid_output for the only chunk', async () => {
      fault({ kind: 'malformed' });
      const res = await summarize();
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('llm_invalid_output');
      expect(stageOneStatuses()).toHaveLength(3);
    });

    it.each<[string, FaultInput[]]>([
      ['think tags', [{ kind: 'think' }]],
      ['a code fence', [{ kind: 'fence' }]],
      ['think tags around a fenced answer', [{ kind: 'think' }, { kind: 'fence' }]],
    ])('removes %s and parses on the first attempt', async (_name, faults) => {
      stub.setFaults(faults.map((input) => ({ match: STAGE_ONE, fault: input })));
      const res = await summarize();
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([200]);
      expect(res.body.summarize_chunk[0].summary).toBe(sentences(2));
    });

    it('repairs loose JSON (unquoted keys, trailing commas) on the first attempt', async () => {
      fault({ kind: 'broken-json' });
      const res = await summarize();
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([200]);
      expect(res.body.summarize_chunk[0].key_points).toHaveLength(3);
      expect(
        (await service()).logs.lines.some((line) => line.includes('model answer repaired')),
      ).toBe(true);
    });

    it('repairs a truncated answer (finish_reason length), keeping its complete fields', async () => {
      fault({ kind: 'truncate', fraction: 0.6 });
      const res = await summarize();
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([200]);
      const [chunk] = SummaryFileSchema.parse(res.body).summarize_chunk;
      expect(chunk?.summary).toBe(sentences(2));
      const repaired = (await service()).logs
        .entries()
        .filter((entry) => entry.msg === 'model answer repaired');
      expect(repaired.at(-1)?.finishReason).toBe('length');
    });

    it('asks again when even the repaired answer lacks the summary', async () => {
      fault({ kind: 'truncate', fraction: 0.01 }, 1);
      const res = await summarize();
      expect(res.status).toBe(200);
      expect(stageOneStatuses()).toEqual([200, 200]);
    });
  });

  it('fails a share of calls by rate, each failed chunk an empty placeholder', async () => {
    stub.setFaults([{ match: STAGE_ONE, rate: 0.3, fault: { kind: 'status', status: 500 } }]);
    const running = await service({ LLM_MAX_RETRIES: '0', LLM_MAX_CONCURRENCY: '4' });
    const res = await postForm(
      `${running.url}/summarize`,
      textForm(sentences(200), { chunk_size: 100 }),
    );
    expect(res.status).toBe(200);
    const failedCalls = stageOneStatuses().filter((status) => status === 500).length;
    expect(failedCalls).toBeGreaterThan(0);
    expect(failedCalls).toBeLessThan(20);
    const placeholders = SummaryFileSchema.parse(res.body).summarize_chunk.filter(
      (chunk) => chunk.summary === '',
    );
    expect(placeholders).toHaveLength(failedCalls);
  });
});
