/**
 * Structured output end to end with the stand-in playing each kind of server: one that honours
 * the json_schema sent, one that ignores it, one that only knows json_object, one that refuses
 * response_format altogether; answers cut by `max_tokens` within a small context; and the
 * degradation rules (a final merge or entity answers that never parse do not fail the request).
 */
import { startLlmStub, type LlmStub, type RecordedCall } from '@pelita/llm-stub';
import { CHUNK_ANSWER, FINAL_ANSWER, ENTITIES_ANSWER } from '../../src/answer-shapes';
import { EntitiesFileSchema, SummaryFileSchema } from '../../src/output-files';
import {
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

const STAGE_ONE = /one part of a longer document/;
const FINAL = /write the final summary of a document/;
const FINAL_JSON = /final summary of a document[\s\S]*JSON object/;
const PLAIN_FINAL = /plain prose/;
const ENTITY_CALL = /extract named entities/;
const TEXT = `Budi Santoso met Ani Wijaya in Jakarta on 17 August 2024. ${sentences(30)}`;

describe('structured output', () => {
  let stub: LlmStub;
  const started: SummarizerUnderTest[] = [];
  /** A fresh summarizer each time: what a model's server refused is remembered per process. */
  const service = async (env: Record<string, string> = {}) => {
    const running = await startSummarizer({
      BASE_URL_LOCAL: stub.url,
      LLM_MAX_RETRIES: '0',
      ...env,
    });
    started.push(running);
    return running;
  };
  const summarize = async (running: SummarizerUnderTest, text = TEXT) => {
    const res = await postForm(`${running.url}/summarize`, textForm(text, { chunk_size: 100 }));
    expect(res.status).toBe(200);
    return SummaryFileSchema.parse(res.body);
  };
  const calls = (pattern?: RegExp): RecordedCall[] =>
    stub.stats().calls.filter((call) => !pattern || pattern.test(call.prompt));

  beforeAll(async () => {
    stub = await startLlmStub();
  });
  afterAll(async () => {
    for (const running of started) await running.stop();
    await stub.close();
  });
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ structuredOutput: 'honour', maxModelLen: 32_768, requireSchema: false });
  });

  describe('a server that honours the schema', () => {
    it('gets the exact schema of each call, strict, and every answer parses on the first attempt', async () => {
      // Any call asking for JSON without its schema would be refused.
      stub.configure({ requireSchema: true });
      const running = await service({ LLM_MAX_TOKENS: '2000' });
      const result = await summarize(running);
      expect(result.warnings).toBeUndefined();
      expect(result.total_initial_chunks).toBe(4);
      expect(result.final_summary.named_entities.chunk_entities_merged.PER).toEqual([
        'Budi Santoso',
        'Ani Wijaya',
      ]);
      const chunkCalls = calls(STAGE_ONE);
      expect(chunkCalls).toHaveLength(4);
      for (const call of chunkCalls) {
        expect(call.jsonSchema).toEqual({
          name: 'chunk_summary',
          schema: CHUNK_ANSWER.jsonSchema,
          strict: true,
        });
      }
      expect(calls(FINAL)[0]?.jsonSchema?.schema).toEqual(FINAL_ANSWER.jsonSchema);
      expect(calls(ENTITY_CALL)[0]?.jsonSchema?.schema).toEqual(ENTITIES_ANSWER.jsonSchema);
      expect(calls().every((call) => call.status === 200 && call.maxTokens === 2000)).toBe(true);
      const metrics = await running.metrics();
      expect(metrics).toMatch(
        /summarizer_llm_answers_total\{operation="chunk",attempt="1",mode="json_schema"\} 4/,
      );
      expect(metrics).not.toMatch(/outcome="invalid_output"/);
    });

    it('makes answers parse even where the model would write prose, fences or think tags', async () => {
      stub.setFaults([
        { match: STAGE_ONE, fault: { kind: 'malformed' } },
        { fault: { kind: 'think' } },
      ]);
      const result = await summarize(await service());
      expect(calls(STAGE_ONE).map((call) => call.faults)).toEqual([[], [], [], []]);
      expect(result.summarize_chunk.every((chunk) => chunk.summary !== '')).toBe(true);
    });
  });

  it('a server that ignores the schema: the prompt and the parse-and-repair loop still work', async () => {
    stub.configure({ structuredOutput: 'ignore' });
    stub.setFaults([
      { match: STAGE_ONE, times: 1, fault: { kind: 'malformed' } },
      { fault: { kind: 'fence' } },
    ]);
    const running = await service();
    const result = await summarize(running);
    expect(result.warnings).toBeUndefined();
    expect(calls(STAGE_ONE)).toHaveLength(5);
    expect(calls().every((call) => call.responseFormat === 'json_schema')).toBe(true);
    expect(await running.metrics()).toMatch(
      /summarizer_llm_answers_total\{operation="chunk",attempt="2",mode="json_schema"\} 1/,
    );
  });

  it('a server that only knows json_object: refused once, then json_object for that model', async () => {
    stub.configure({ structuredOutput: 'json_object' });
    const running = await service();
    const result = await summarize(running);
    expect(result.summarize_chunk.every((chunk) => chunk.summary !== '')).toBe(true);
    const formats = calls().map((call) => `${call.responseFormat}:${call.status}`);
    // Concurrency 2: the two first calls both learn of the refusal; every later one knows.
    expect(formats.filter((format) => format === 'json_schema:400').length).toBeLessThanOrEqual(2);
    expect(formats.slice(-4).every((format) => format === 'json_object:200')).toBe(true);
    const metrics = await running.metrics();
    expect(metrics).toMatch(
      /summarizer_structured_output_downgrades_total\{from="json_schema",to="json_object"\} 1/,
    );
    expect(
      running.logs.lines.filter((line) => line.includes('refused response_format')),
    ).toHaveLength(1);
  });

  it('a server that refuses response_format: prompt-only from then on', async () => {
    stub.configure({ structuredOutput: 'none' });
    const running = await service({ LLM_MAX_CONCURRENCY: '1' });
    await summarize(running);
    const formats = calls().map((call) => `${call.responseFormat}:${call.status}`);
    expect(formats.slice(0, 3)).toEqual(['json_schema:400', 'json_object:400', 'undefined:200']);
    expect(formats.slice(3).every((format) => format === 'undefined:200')).toBe(true);
  });

  it('LLM_STRUCTURED_OUTPUT=prompt sends no response_format at all', async () => {
    await summarize(await service({ LLM_STRUCTURED_OUTPUT: 'prompt' }));
    expect(calls().every((call) => call.responseFormat === undefined && call.status === 200)).toBe(
      true,
    );
  });

  describe('token limits', () => {
    it('asks for no more than the context leaves after the prompt', async () => {
      stub.configure({ maxModelLen: 900 });
      const running = await service();
      // The probe reads the context length from the model list.
      await fetch(`${running.url}/ready`);
      await summarize(running, sentences(60));
      expect(calls().length).toBeGreaterThan(0);
      for (const call of calls()) {
        expect(call.status).toBe(200);
        expect(call.maxTokens).toBeLessThan(900);
        expect(call.usage!.prompt_tokens + call.maxTokens!).toBeLessThanOrEqual(900);
      }
    });

    it('asks no more than an answer about its text needs: 256 tokens plus the text (LLM_ANSWER_RATIO 1)', async () => {
      const running = await service();
      await fetch(`${running.url}/ready`);
      await summarize(running);
      // Chunks of at most 100 words (140 tokens estimated); the context would leave 32,000.
      expect(calls(STAGE_ONE)).toHaveLength(4);
      for (const call of calls(STAGE_ONE)) expect(call.maxTokens).toBeLessThanOrEqual(256 + 140);
      // The final merge and the key points' entities work on short texts too.
      expect(calls().every((call) => call.status === 200 && call.maxTokens! < 1_000)).toBe(true);
    });

    it('LLM_ANSWER_RATIO=0: what the context leaves after the prompt', async () => {
      const running = await service({ LLM_ANSWER_RATIO: '0' });
      await fetch(`${running.url}/ready`);
      await summarize(running);
      expect(calls().length).toBeGreaterThan(0);
      expect(calls().every((call) => call.status === 200 && call.maxTokens! > 30_000)).toBe(true);
    });

    it('sends no max_tokens when neither the context nor LLM_MAX_TOKENS is known', async () => {
      stub.configure({ maxModelLen: null });
      const running = await service();
      await fetch(`${running.url}/ready`);
      await summarize(running);
      expect(calls().every((call) => call.maxTokens === undefined && call.status === 200)).toBe(
        true,
      );
    });

    it('keeps the complete fields of an answer cut at max_tokens (finish_reason length)', async () => {
      const running = await service({ LLM_MAX_TOKENS: '40' });
      const result = await summarize(running);
      expect(calls(STAGE_ONE).every((call) => call.finishReason === 'length')).toBe(true);
      expect(calls(STAGE_ONE)).toHaveLength(4);
      expect(result.summarize_chunk.every((chunk) => chunk.summary !== '')).toBe(true);
      expect(running.logs.lines.some((line) => line.includes('model answer repaired'))).toBe(true);
    });
  });

  describe('degrade, do not fail', () => {
    beforeEach(() => stub.configure({ structuredOutput: 'ignore' }));

    it('a final merge that never parses: the final summary comes from a plain-text answer', async () => {
      stub.setFaults([{ match: FINAL_JSON, fault: { kind: 'malformed' } }]);
      const running = await service();
      const result = await summarize(running);
      expect(calls(FINAL_JSON)).toHaveLength(3);
      expect(calls(PLAIN_FINAL)).toHaveLength(1);
      expect(calls(PLAIN_FINAL)[0]?.responseFormat).toBeUndefined();
      expect(result.final_summary.summary).toMatch(/^Budi Santoso met Ani Wijaya/);
      expect(result.final_summary.key_points_model).toEqual(
        result.final_summary.key_points_aggregated,
      );
      expect(result.final_summary.named_entities.final_summary_entities.PER).toContain(
        'Budi Santoso',
      );
      expect(result.warnings).toEqual([expect.stringMatching(/plain-text answer/)]);
      expect(await running.metrics()).toMatch(
        /summarizer_degraded_results_total\{what="final_text"\} 1/,
      );
    });

    it('and when the plain-text answer fails too: the chunk summaries joined', async () => {
      stub.setFaults([
        { match: FINAL_JSON, fault: { kind: 'malformed' } },
        { match: PLAIN_FINAL, fault: { kind: 'status', status: 500 } },
      ]);
      const result = await summarize(await service());
      const joined = result.summarize_chunk.map((chunk) => chunk.summary).join('\n\n');
      expect(result.final_summary.summary).toBe(joined);
      expect(result.final_summary.named_entities.final_summary_entities).toEqual(
        result.final_summary.named_entities.chunk_entities_merged,
      );
      expect(result.warnings).toEqual([expect.stringMatching(/chunk summaries joined/)]);
    });

    it('a final merge the model server fails: joined at once, no plain-text call', async () => {
      stub.setFaults([{ match: FINAL_JSON, fault: { kind: 'status', status: 500 } }]);
      const result = await summarize(await service());
      expect(calls(PLAIN_FINAL)).toHaveLength(0);
      expect(result.warnings).toEqual([
        expect.stringMatching(/^the final merge failed \(the model server answered 500/),
      ]);
    });

    it('a chunk that never parses keeps the placeholder and is named in the warnings', async () => {
      stub.setFaults([{ match: /Marker s0 /, fault: { kind: 'malformed' } }]);
      const result = await summarize(await service());
      expect(result.summarize_chunk.map((chunk) => chunk.summary === '')).toEqual([
        true,
        false,
        false,
        false,
      ]);
      expect(result.warnings).toEqual([
        '1 of 4 chunks gave no usable answer and are empty placeholders',
      ]);
    });

    it('entities that never parse are empty lists with a warning, answered 200', async () => {
      stub.setFaults([{ match: ENTITY_CALL, fault: { kind: 'malformed' } }]);
      const running = await service();
      const res = await postForm(`${running.url}/extract_entities`, textForm(TEXT));
      expect(res.status).toBe(200);
      const file = EntitiesFileSchema.parse(res.body);
      expect(file.named_entities.PER).toEqual([]);
      expect(file.warnings).toEqual([
        expect.stringMatching(/^1 of 1 chunks gave no usable entities/),
      ]);
    });
  });
});
