/**
 * The result and summary indexes shared by two installs on the real OpenSearch, with the same
 * task ids on purpose (task ids are the caller's to choose): each reads its own chunks, a
 * re-run of one never removes the other's, and an install's own indexes from before move in.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import type { SummaryFile } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import { createChunkIndex } from '../../src/results/chunk-index';
import { chunkDocuments } from '../../src/results/chunks';
import { createSummaryIndex } from '../../src/summaries/summary-index';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');

const chunksOf = (taskId: string, pages: number, text: string) =>
  chunkDocuments(
    {
      contentList: Array.from({ length: pages }, (_, i) => ({
        page: i + 1,
        type: 'text',
        content: `${text} ${i + 1}`,
      })),
      mdContentList: [],
    },
    {
      taskId,
      pdfName: `${taskId}.pdf`,
      uploadedAt: new Date(),
      outputPdfFile: undefined,
      metadataDocument: undefined,
    },
  );

const summaryFile = (text: string): SummaryFile => ({
  final_summary: {
    summary: text,
    key_points_model: ['one'],
    topics_aggregated: ['t'],
    named_entities: { PERSON: ['Ann'] },
  },
  summarize_chunk: [
    {
      chunk_index: 0,
      summary: `${text} (chunk)`,
      key_points: [],
      topics: [],
      named_entities: {},
      original_tokens: 10,
      summary_tokens: 3,
    },
  ],
  total_initial_chunks: 1,
  final_summary_tokens: 3,
});

describe('OCR indexes shared by two installs', () => {
  const run = randomBytes(4).toString('hex');
  const names = {
    results: `ocr-shared-results-${run}`,
    document: `ocr-shared-summary-${run}`,
    chunk: `ocr-shared-summary-chunk-${run}`,
  };
  const client = new Client({ node: OPENSEARCH_URL });
  const layout = (tenant: string | undefined) => ({ tenant, shards: 1, replicas: 0 });
  const chunksA = createChunkIndex(client, names.results, layout('ns-a/acme'));
  const chunksB = createChunkIndex(client, names.results, layout('ns-b/acme'));

  beforeAll(async () => {
    await chunksA.ensure();
    await chunksB.ensure();
  });
  afterAll(async () => {
    for (const name of Object.values(names).flatMap((n) => [n, `${n}-legacy`])) {
      await fetch(`${OPENSEARCH_URL}/${name}`, { method: 'DELETE' });
    }
    await client.close();
  });

  it('answers each install the chunks of its own task of the same id', async () => {
    await chunksA.store('upload-1', chunksOf('upload-1', 12, 'A'));
    await chunksB.store('upload-1', chunksOf('upload-1', 4, 'B'));
    const a = await chunksA.read('upload-1', 1, 10);
    const b = await chunksB.read('upload-1', 1, 10);
    expect([a.total_documents, b.total_documents]).toEqual([3, 1]);
    expect(a.documents.map((d) => d.content_list[0]!.content)).toEqual(['A 1', 'A 6', 'A 11']);
    expect(b.documents[0]!.id).toBe('upload-1_chunk_1');
    // The seed's document shape, nothing of the index's bookkeeping.
    expect(Object.keys(b.documents[0]!)).not.toContain('tenant');
  });

  it("leaves the other install's chunks when one re-runs a task with fewer", async () => {
    await chunksA.store('upload-1', chunksOf('upload-1', 4, 'A again'));
    expect((await chunksA.read('upload-1', 1, 10)).total_documents).toBe(1);
    expect((await chunksB.read('upload-1', 1, 10)).documents[0]!.content_list[0]!.content).toBe(
      'B 1',
    );
  });

  it('keeps the summaries of the same task id apart', async () => {
    const summariesA = createSummaryIndex(client, names, layout('ns-a/acme'));
    const summariesB = createSummaryIndex(client, names, layout('ns-b/acme'));
    await summariesA.ensure();
    await summariesA.store('upload-1', 'a.pdf', summaryFile('Summary of A'));
    await summariesB.store('upload-1', 'b.pdf', summaryFile('Summary of B'));
    const stored = await client.search({ index: names.document, body: { size: 10 } });
    const bySummary = stored.body.hits.hits
      .map((hit) => [hit._id, (hit._source as { summary: string; tenant: string }).tenant])
      .sort();
    expect(bySummary).toEqual([
      ['ns-a/acme:upload-1', 'ns-a/acme'],
      ['ns-b/acme:upload-1', 'ns-b/acme'],
    ]);
  });

  it("moves an install's own result and summary indexes in", async () => {
    const legacy = {
      results: `${names.results}-legacy`,
      document: `${names.document}-legacy`,
      chunk: `${names.chunk}-legacy`,
    };
    await createChunkIndex(client, legacy.results).store('old', chunksOf('old', 8, 'C'));
    await createSummaryIndex(client, legacy).store('old', 'c.pdf', summaryFile('Summary of C'));
    const chunksC = createChunkIndex(client, names.results, layout('ns-c/acme'));
    const summariesC = createSummaryIndex(client, names, layout('ns-c/acme'));
    expect(await chunksC.moveLegacy(legacy.results)).toBe(2);
    expect(await summariesC.moveLegacy(legacy)).toBe(2);
    expect((await chunksC.read('old', 1, 10)).total_documents).toBe(2);
    expect((await chunksA.read('old', 1, 10)).total_documents).toBe(0);
    for (const name of Object.values(legacy)) {
      expect((await client.indices.exists({ index: name })).body).toBe(false);
    }
  });
});
