/**
 * `POST /summarize` against the LLM stand-in over HTTP: the output file of the spec, chunking,
 * entities from the raw chunk text, the three entity sources, token figures, temporary files.
 */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { waitFor } from '@pelita/testenv';
import { emptyEntities, mergeEntities } from '../../src/entities';
import { SummaryFileSchema } from '../../src/output-files';
import {
  postForm,
  sentences,
  startSummarizer,
  textForm,
  type SummarizerUnderTest,
} from './support/summarizer-under-test';

describe('POST /summarize', () => {
  let stub: LlmStub;
  let service: SummarizerUnderTest;
  const summarize = (text: string, fields = {}) =>
    postForm(`${service.url}/summarize`, textForm(text, fields));

  beforeAll(async () => {
    stub = await startLlmStub();
    service = await startSummarizer({ BASE_URL_LOCAL: stub.url, LLM_MAX_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await service.stop();
    await stub.close();
  });
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ latencyMs: 0, summaryMode: 'shrink', includeUsage: true });
  });

  it('answers a download named summary_YYYYMMDD_HHMMSS.json with every field of the spec', async () => {
    const res = await summarize(sentences(30), { chunk_size: 100 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="?summary_\d{8}_\d{6}\.json"?$/,
    );
    const file = SummaryFileSchema.parse(res.body);
    expect(file.total_initial_chunks).toBe(3);
    expect(file.summarize_chunk.map((chunk) => chunk.chunk_index)).toEqual([0, 1, 2]);
    expect(file.summarize_chunk[0]?.original_text).toBe(sentences(10));
    // The stand-in's summary: the leading sentences within a quarter of the words.
    expect(file.summarize_chunk[0]?.summary).toBe(sentences(2));
    expect(file.summarize_chunk[0]?.key_points).toHaveLength(3);
    expect(file.summarize_chunk[0]?.topics).toEqual(['flows', 'houses', 'marker']);
    expect(file.final_summary.summary.length).toBeGreaterThan(0);
    expect(file.final_summary.key_points_model.length).toBeGreaterThan(0);
    expect(Object.keys(file.final_summary.named_entities)).toEqual([
      'final_summary_entities',
      'aggregated_key_points_entities',
      'chunk_entities_merged',
      'all_entities_merged',
    ]);
  });

  it('takes the defaults of the spec when no parameter is sent: 10,000 words, NER on', async () => {
    const res = await summarize(sentences(1500)); // 15,000 words
    expect(res.status).toBe(200);
    expect(res.body.total_initial_chunks).toBe(2);
    const file = SummaryFileSchema.parse(res.body);
    expect(file.summarize_chunk[0]?.original_text.split(' ')).toHaveLength(10_000);
    const chunkCalls = stub.stats().calls.filter((call) => call.prompt.includes('one part of'));
    expect(chunkCalls.every((call) => call.asked.includes('named_entities'))).toBe(true);
  });

  it('sends each chunk of whole sentences; a sentence over the cap is a chunk of its own', async () => {
    const long = `${Array.from({ length: 30 }, (_, i) => `long${i}`).join(' ')}.`;
    const text = `${sentences(2, 'a')} ${long} ${sentences(3, 'b')}`;
    const res = await summarize(text, { chunk_size: 25 });
    const chunks = SummaryFileSchema.parse(res.body).summarize_chunk.map(
      (chunk) => chunk.original_text,
    );
    expect(chunks).toEqual([
      sentences(2, 'a'),
      long,
      sentences(2, 'b'),
      sentences(1, 'b').replace('b0', 'b2'),
    ]);
    const documents = stub.stats().calls.map((call) => call.document);
    for (const chunk of chunks) expect(documents).toContain(chunk);
  });

  it('takes entities from the raw chunk text, not from the summary', async () => {
    const text = `${sentences(6)} Later that year, Budi Santoso landed at Soekarno Airport in Jakarta on 17 August 1945.`;
    const res = await summarize(text, { chunk_size: 1000 });
    const [chunk] = res.body.summarize_chunk;
    expect(chunk.summary).not.toContain('Jakarta');
    expect(chunk.named_entities).toEqual({
      ...emptyEntities(),
      PER: ['Budi Santoso'],
      FAC: ['Soekarno Airport'],
      GPE: ['Jakarta'],
      DATE: ['17 August 1945'],
    });
  });

  it('merges entities from the chunks, the final summary and the key points, without duplicates', async () => {
    // 50 and 42 words: two chunks of 50 words at most.
    const chunkA = `Ani Wijaya visited Jakarta. ${sentences(4, 'a')} Later, Jakarta hosted the Pelita Expo.`;
    const chunkB = `Rudi Hartono flew to Bandung. ${sentences(3, 'b')} The office of Pelita Foundation agreed.`;
    const res = await summarize(`${chunkA} ${chunkB}`, { chunk_size: 50 });
    const file = SummaryFileSchema.parse(res.body);
    expect(file.total_initial_chunks).toBe(2);
    const entities = file.final_summary.named_entities;
    expect(entities.chunk_entities_merged.GPE).toEqual(['Jakarta', 'Bandung']);
    // The final merge reads the chunk summaries (their first sentences).
    expect(entities.final_summary_entities.PER).toEqual(['Ani Wijaya', 'Rudi Hartono']);
    // Key points: first, middle and last sentence of each chunk.
    expect(entities.aggregated_key_points_entities.EVENT).toEqual(['Pelita Expo']);
    expect(entities.all_entities_merged).toEqual(
      mergeEntities(
        entities.chunk_entities_merged,
        entities.final_summary_entities,
        entities.aggregated_key_points_entities,
      ),
    );
    const keyPointCall = stub
      .stats()
      .calls.find((call) => call.prompt.includes('extract named entities'));
    expect(keyPointCall?.document).toBe(file.final_summary.key_points_aggregated.join('\n\n'));
    expect(file.final_summary.key_points_aggregated).toEqual([
      ...new Set(file.summarize_chunk.flatMap((chunk) => chunk.key_points)),
    ]);
  });

  it('asks for no entities at all when enable_ner is false', async () => {
    const res = await summarize(`Budi Santoso is in Jakarta. ${sentences(20)}`, {
      chunk_size: 50,
      enable_ner: 'false',
    });
    const file = SummaryFileSchema.parse(res.body);
    for (const set of Object.values(file.final_summary.named_entities)) {
      expect(set).toEqual(emptyEntities());
    }
    expect(file.summarize_chunk.every((chunk) => chunk.named_entities.PER.length === 0)).toBe(true);
    expect(stub.stats().calls.every((call) => !call.asked.includes('named_entities'))).toBe(true);
  });

  it('reports token figures from the model server\u2019s usage', async () => {
    const res = await summarize(sentences(20), { chunk_size: 100 });
    const file = SummaryFileSchema.parse(res.body);
    const calls = stub.stats().calls;
    for (const chunk of file.summarize_chunk) {
      const call = calls.find((entry) => entry.document === chunk.original_text);
      expect(chunk.original_tokens).toBe(call?.usage?.prompt_tokens);
      expect(chunk.summary_tokens).toBe(call?.usage?.completion_tokens);
    }
    const final = calls.find((call) => call.prompt.includes('final summary of a document'));
    expect(file.final_summary_tokens).toBe(final?.usage?.completion_tokens);
  });

  it('estimates token figures (words × 1.4) when the server reports no usage', async () => {
    stub.configure({ includeUsage: false });
    const res = await summarize(sentences(20), { chunk_size: 100 });
    const file = SummaryFileSchema.parse(res.body);
    expect(file.summarize_chunk[0]?.original_tokens).toBe(140);
    expect(file.summarize_chunk[0]?.summary_tokens).toBe(Math.ceil(20 * 1.4));
    expect(file.final_summary_tokens).toBe(
      Math.ceil(file.final_summary.summary.split(/\s+/).length * 1.4),
    );
  });

  it('keeps uploads in a per-request directory and removes it once the answer is sent', async () => {
    stub.configure({ latencyMs: 300 });
    const pending = summarize(sentences(5));
    await waitFor(async () => (await service.leftovers()).length === 1, 'one temporary file');
    const [dir] = await service.leftovers();
    expect(dir).toMatch(/^upload-/);
    expect((await pending).status).toBe(200);
    await waitFor(async () => (await service.leftovers()).length === 0, 'no temporary files');
  });
});
