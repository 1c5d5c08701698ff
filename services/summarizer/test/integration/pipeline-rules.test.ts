/**
 * The pipeline rules that need several model calls, against the LLM stand-in: the concurrency
 * cap, re-summarising passes (without entities), the loop that always ends, a failing chunk.
 */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { emptyEntities } from '../../src/entities';
import { SummaryFileSchema } from '../../src/output-files';
import {
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

const CHUNK_PROMPT = 'one part of a longer document';
const REDUCE_PROMPT = 'made of summaries of consecutive parts';
const FINAL_PROMPT = 'final summary of a document';

describe('pipeline rules', () => {
  let stub: LlmStub;
  const services: SummarizerUnderTest[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const service = await startSummarizer({ BASE_URL_LOCAL: stub.url, ...env });
    services.push(service);
    return service;
  };
  const summarize = (service: SummarizerUnderTest, text: string, fields = {}) =>
    postForm(`${service.url}/summarize`, textForm(text, fields));
  const callsWith = (fragment: string) =>
    stub.stats().calls.filter((call) => call.prompt.includes(fragment));

  beforeAll(async () => {
    stub = await startLlmStub();
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await stub.close();
  });
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ latencyMs: 0, summaryMode: 'shrink', maxModelLen: 32_768 });
  });

  it.each([1, 3])(
    'runs stage 1 in parallel, at most LLM_MAX_CONCURRENCY=%i calls at once',
    async (cap) => {
      const service = await start({ LLM_MAX_CONCURRENCY: String(cap) });
      stub.configure({ latencyMs: 40 });
      const res = await summarize(service, sentences(120), { chunk_size: 100 });
      expect(res.status).toBe(200);
      expect(res.body.total_initial_chunks).toBe(12);
      expect(stub.stats().peakInFlight).toBe(cap);
    },
  );

  it('caps model calls for the whole process, across concurrent requests', async () => {
    const service = await start({ LLM_MAX_CONCURRENCY: '2' });
    stub.configure({ latencyMs: 30 });
    const answers = await Promise.all(
      [1, 2, 3].map(() => summarize(service, sentences(40), { chunk_size: 100 })),
    );
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(stub.stats().peakInFlight).toBe(2);
  });

  it('summarises 200,000 words with a second pass, entities only in stage 1', async () => {
    const service = await start({ LLM_MAX_CONCURRENCY: '8' });
    const res = await summarize(service, sentences(20_000), {
      chunk_size: 10_000,
      target_context: 20_000,
    });
    expect(res.status).toBe(200);
    const file = SummaryFileSchema.parse(res.body);
    expect(file.total_initial_chunks).toBe(20);
    const stageOne = callsWith(CHUNK_PROMPT);
    expect(stageOne).toHaveLength(20);
    expect(stageOne.every((call) => call.asked.includes('named_entities'))).toBe(true);
    // 20 summaries of 2,500 words = 50,000 > 20,000: re-chunked into 5 chunks, shrunk to 12,500.
    const passTwo = callsWith(REDUCE_PROMPT);
    expect(passTwo).toHaveLength(5);
    expect(passTwo.every((call) => call.asked.join() === 'summary')).toBe(true);
    const [final] = callsWith(FINAL_PROMPT);
    expect(final?.document.split(/\s+/)).toHaveLength(12_500);
    expect(final?.asked).toContain('named_entities');
    expect(await service.metrics()).toMatch(
      /summarizer_reduction_loops_total\{ended="target_reached"\} 1/,
    );
  }, 30_000);

  it('ends the loop when a pass does not shrink the text (a model that echoes)', async () => {
    const service = await start();
    stub.configure({ summaryMode: 'echo' });
    const res = await summarize(service, sentences(60), { chunk_size: 100, target_context: 50 });
    expect(res.status).toBe(200);
    expect(callsWith(CHUNK_PROMPT)).toHaveLength(6);
    expect(callsWith(REDUCE_PROMPT)).toHaveLength(6); // exactly one pass, then the loop ends
    const [final] = callsWith(FINAL_PROMPT);
    expect(final?.document.split(/\s+/)).toHaveLength(600);
    expect(SummaryFileSchema.parse(res.body).final_summary.summary.split(/\s+/)).toHaveLength(600);
    expect(service.logs.lines.some((line) => line.includes('did not shrink the text'))).toBe(true);
    expect(await service.metrics()).toMatch(
      /summarizer_reduction_loops_total\{ended="no_shrink"\} 1/,
    );
  });

  it('ends the loop when only the re-summarising passes stop shrinking', async () => {
    const service = await start();
    stub.setFaults([{ match: REDUCE_PROMPT, fault: { kind: 'no-shrink' } }]);
    const res = await summarize(service, sentences(200), { chunk_size: 100, target_context: 100 });
    expect(res.status).toBe(200);
    // Stage 1 shrinks 2,000 words to 400; the one pass over them returns 400 words again.
    expect(callsWith(REDUCE_PROMPT)).toHaveLength(4);
    expect(callsWith(FINAL_PROMPT)[0]?.document.split(/\s+/)).toHaveLength(400);
  });

  it('ends the loop at MAX_REDUCTION_PASSES even while each pass still shrinks', async () => {
    const service = await start({ MAX_REDUCTION_PASSES: '1' });
    const res = await summarize(service, sentences(80), { chunk_size: 100, target_context: 10 });
    expect(res.status).toBe(200);
    // 8 summaries of 20 words = 160 words; one pass over chunks of 100 and 60 words leaves
    // 20 + 10 words, still over 10.
    expect(callsWith(REDUCE_PROMPT)).toHaveLength(2);
    expect(callsWith(FINAL_PROMPT)[0]?.document.split(/\s+/)).toHaveLength(30);
    expect(await service.metrics()).toMatch(
      /summarizer_reduction_loops_total\{ended="pass_limit"\} 1/,
    );
  });

  it('replaces a failing chunk by an empty placeholder and keeps the others', async () => {
    const service = await start({ LLM_MAX_RETRIES: '0' });
    stub.setFaults([{ match: /POISON/, fault: { kind: 'status', status: 500 } }]);
    const text = `${sentences(10, 'a')} ${sentences(9, 'p')} POISON sentence here now. ${sentences(10, 'c')}`;
    const res = await summarize(service, text, { chunk_size: 100 });
    expect(res.status).toBe(200);
    const file = SummaryFileSchema.parse(res.body);
    expect(file.total_initial_chunks).toBe(3);
    expect(file.summarize_chunk[1]).toEqual({
      chunk_index: 1,
      original_tokens: 132, // 94 words × 1.4, rounded up
      summary_tokens: 0,
      original_text: `${sentences(9, 'p')} POISON sentence here now.`,
      summary: '',
      key_points: [],
      topics: [],
      named_entities: emptyEntities(),
    });
    expect(file.summarize_chunk[0]?.summary).not.toBe('');
    expect(file.summarize_chunk[2]?.summary).not.toBe('');
    expect(callsWith(FINAL_PROMPT)[0]?.document).not.toContain('POISON');
    const warning = service.logs
      .entries()
      .find((entry) => String(entry.msg).startsWith('chunk replaced by an empty placeholder'));
    expect(warning).toMatchObject({ level: 'warn', chunk: 1, chunks: 3 });
    expect(warning?.request_id).toBe(res.headers.get('x-request-id'));
    expect(await service.metrics()).toMatch(
      /summarizer_chunks_processed_total\{stage="initial",outcome="failed"\} 1/,
    );
  });

  it("cuts chunks to what the model's context takes, rather than lose them to its refusal", async () => {
    // 2,048 tokens (the local model of make dev): 60 % of it is 877 words at 1.4 tokens a word.
    stub.configure({ maxModelLen: 2048 });
    const service = await start();
    const text = sentences(300); // 3,000 words: one chunk of the default 10,000 without the cut
    const res = await summarize(service, text);
    expect(res.status).toBe(200);
    const file = SummaryFileSchema.parse(res.body);
    expect(file.total_initial_chunks).toBe(4);
    for (const chunk of file.summarize_chunk) {
      expect(chunk.original_text.split(/\s+/).length).toBeLessThanOrEqual(877);
      expect(chunk.summary).not.toBe('');
    }
    expect(file.warnings).toEqual([
      "chunks of at most 877 words, not 10000: the model's context holds 2048 tokens",
    ]);
    expect(stub.stats().calls.every((call) => call.status === 200)).toBe(true);

    stub.resetStats();
    const entities = await postForm(`${service.url}/extract_entities`, textForm(text));
    expect(entities.status).toBe(200);
    expect(entities.body.warnings).toBeUndefined();
    expect(stub.stats().calls).toHaveLength(4);
  });
});
