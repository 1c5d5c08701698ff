/**
 * Operating the summarizer: `/health` with the model server's model list, `/ready`, the
 * start-up probe, metrics, and the API key (sent to the model server, never logged).
 */
import { createLogger } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { createModelStatus, probeModelContext } from '../../src/model-probe';
import {
  LogCapture,
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

describe('operations', () => {
  let stub: LlmStub;
  const services: SummarizerUnderTest[] = [];
  const start = async (env: Record<string, string>) => {
    const service = await startSummarizer(env);
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    stub = await startLlmStub({ models: ['pelita-stub', 'other-model'] });
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await stub.close();
  });

  it('GET /health reports the model server and its models', async () => {
    const service = await start({ BASE_URL_LOCAL: stub.url });
    const res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      model_base_url: stub.url,
      configured_model: 'pelita-stub',
      upstream: { reachable: true, models: ['pelita-stub', 'other-model'], error: null },
    });
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
  });

  it('GET /health answers from the last check without calling the model server; /ready asks it', async () => {
    const service = await start({ BASE_URL_LOCAL: stub.url });
    const modelLists = () => stub.stats().modelLists;
    const before = modelLists();
    for (let i = 0; i < 3; i += 1) {
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
    }
    expect(modelLists()).toBe(before);
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    expect(modelLists()).toBe(before + 1);
  });

  it('GET /health stays 200 when the model server is down; /ready turns 503', async () => {
    const service = await start({
      BASE_URL_LOCAL: 'http://user:hunter2@127.0.0.1:1/v1',
      UPSTREAM_CHECK_TIMEOUT_MS: '1000',
    });
    const res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toEqual({
      status: 'ok',
      model_base_url: 'http://user:[REDACTED]@127.0.0.1:1/v1',
      configured_model: 'pelita-stub',
      upstream: { reachable: false, models: [], error: 'the model server is unreachable' },
    });
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).not.toContain('hunter2');
  });

  describe('start-up probe', () => {
    const probe = async (url: string, model = 'pelita-stub') => {
      const logs = new LogCapture();
      const service = await start({ BASE_URL_LOCAL: url, MODEL_LOCAL: model });
      const logger = createLogger({ name: 'probe', destination: logs });
      const { client } = service.service;
      const result = await probeModelContext(client, createModelStatus(client, 1000), logger);
      return { result, logs: logs.entries() };
    };

    it('warns when a default chunk (10,000 words × 1.4) exceeds 60% of the maximum length', async () => {
      stub.configure({ maxModelLen: 16_384 });
      const { result, logs } = await probe(stub.url);
      expect(result).toEqual({
        outcome: 'too_large',
        maxModelLength: 16_384,
        estimatedTokens: 14_000,
      });
      const warning = logs.find((entry) => entry.level === 'warn');
      expect(warning).toMatchObject({ advisedChunkSize: 7021, maxModelLength: 16_384 });
      expect(warning?.msg).toContain('chunks are cut to 7021 words');
    });

    it('only informs when the default chunk fits', async () => {
      stub.configure({ maxModelLen: 32_768 });
      const { result, logs } = await probe(stub.url);
      expect(result).toEqual({ outcome: 'fits', maxModelLength: 32_768, estimatedTokens: 14_000 });
      expect(logs.filter((entry) => entry.level === 'warn')).toEqual([]);
    });

    it('copes with a server that reports no length, an unknown model, or no answer at all', async () => {
      stub.configure({ maxModelLen: null });
      expect((await probe(stub.url)).result).toEqual({ outcome: 'no_length' });
      stub.configure({ maxModelLen: 16_384 });
      const unknown = await probe(stub.url, 'not-listed');
      expect(
        unknown.logs.some((entry) => String(entry.msg).includes('not in the model list')),
      ).toBe(true);
      const down = await probe('http://127.0.0.1:1/v1');
      expect(down.result).toEqual({ outcome: 'failed' });
      expect(down.logs[0]?.msg).toMatch(/model list unavailable .*starting anyway/);
      stub.configure({ maxModelLen: 32_768 });
    });
  });

  it('exports LLM call, latency, chunk and token metrics', async () => {
    const service = await start({ BASE_URL_LOCAL: stub.url });
    const res = await postForm(
      `${service.url}/summarize`,
      textForm(sentences(20), { chunk_size: 100 }),
    );
    expect(res.status).toBe(200);
    const text = await service.metrics();
    expect(text).toMatch(/summarizer_llm_calls_total\{operation="chunk",outcome="success"\} 2/);
    expect(text).toMatch(/summarizer_llm_calls_total\{operation="final",outcome="success"\} 1/);
    expect(text).toMatch(/summarizer_llm_call_duration_seconds_count\{operation="chunk"\} 2/);
    expect(text).toMatch(/summarizer_chunks_processed_total\{stage="initial",outcome="ok"\} 2/);
    expect(text).toMatch(/summarizer_llm_tokens_total\{direction="in"\} [1-9]\d*/);
    expect(text).toMatch(/summarizer_llm_tokens_total\{direction="out"\} [1-9]\d*/);
    expect(text).toMatch(/summarizer_llm_http_attempts_total\{status="200"\} [1-9]/);
    expect(text).toMatch(/summarizer_reduction_loops_total\{ended="not_needed"\} 1/);
    expect(text).toMatch(
      /http_server_request_duration_seconds_count\{method="POST",route="\/summarize",status_code="200"\} 1/,
    );
  });

  it('sends API_KEY_LOCAL to the model server and never logs it', async () => {
    const locked = await startLlmStub({ apiKey: 'sk-live-9f8e7d6c' });
    try {
      const service = await start({
        BASE_URL_LOCAL: locked.url,
        API_KEY_LOCAL: 'sk-live-9f8e7d6c',
      });
      const res = await postForm(`${service.url}/summarize`, textForm(sentences(5)));
      expect(res.status).toBe(200);
      expect(locked.stats().calls.every((call) => call.status === 200)).toBe(true);
      const wrong = await start({ BASE_URL_LOCAL: locked.url, API_KEY_LOCAL: 'sk-wrong-1234' });
      const denied = await postForm(`${wrong.url}/summarize`, textForm(sentences(5)));
      expect(denied.status).toBe(502);
      expect(JSON.stringify(denied.body)).not.toContain('sk-wrong-1234');
      for (const line of [...service.logs.lines, ...wrong.logs.lines]) {
        expect(line).not.toContain('sk-live-9f8e7d6c');
        expect(line).not.toContain('sk-wrong-1234');
      }
    } finally {
      await locked.close();
    }
  });

  it('sends no Authorization header when API_KEY_LOCAL is empty', async () => {
    stub.resetStats();
    const service = await start({ BASE_URL_LOCAL: stub.url, API_KEY_LOCAL: '' });
    expect((await postForm(`${service.url}/summarize`, textForm(sentences(5)))).status).toBe(200);
    expect(stub.stats().calls.some((call) => call.authorization)).toBe(false);
  });
});
