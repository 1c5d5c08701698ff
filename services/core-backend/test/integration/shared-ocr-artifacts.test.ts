/**
 * What the OCR pipeline left for a document, in indexes two installs share on the real OpenSearch
 * (same task id on purpose): core-backend reads and removes only its own install's.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { tenantIndex } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import { createOcrArtifacts } from '../../src/documents/ocr-artifacts';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');

describe('OCR artifacts in shared indexes', () => {
  const run = randomBytes(4).toString('hex');
  const indexes = {
    results: `core-shared-results-${run}`,
    summary: `core-shared-summary-${run}`,
    chunkSummary: `core-shared-summary-chunk-${run}`,
  };
  const search = new Client({ node: OPENSEARCH_URL });
  const artifactsOf = (tenant: string) =>
    createOcrArtifacts({ search, indexes, layout: { tenant }, objects: undefined });

  /** What the OCR worker of `tenant` writes for task `t1` (through the same handle it uses). */
  async function written(tenant: string, text: string): Promise<void> {
    const layout = { tenant, shards: 1, replicas: 0 };
    const results = tenantIndex(search, indexes.results, layout);
    const summaries = tenantIndex(search, indexes.summary, layout);
    const chunkSummaries = tenantIndex(search, indexes.chunkSummary, layout);
    for (const index of [results, summaries, chunkSummaries]) {
      await index.create({
        mappings: { properties: { pdf_id: { type: 'keyword' }, task_id: { type: 'keyword' } } },
      });
    }
    await results.bulk(
      [1, 2].map((n) => ({ index: { id: `t1_chunk_${n}`, document: { pdf_id: 't1', text } } })),
      true,
    );
    await summaries.put('t1', { task_id: 't1', summary: text }, true);
    await chunkSummaries.put('t1_0', { task_id: 't1', summary: text }, true);
  }

  const count = async (index: string) =>
    ((await search.count({ index })).body as { count: number }).count;

  beforeAll(async () => {
    await written('ns-a/acme', 'A');
    await written('ns-b/acme', 'B');
  });
  afterAll(async () => {
    for (const index of Object.values(indexes)) {
      await search.indices.delete({ index }).catch(() => undefined);
    }
    await search.close();
  });

  it("reads the own install's summary of a task id both have", async () => {
    expect((await artifactsOf('ns-a/acme').summary('t1'))?.summary).toBe('A');
    expect((await artifactsOf('ns-b/acme').summary('t1'))?.summary).toBe('B');
    expect(await artifactsOf('ns-c/acme').summary('t1')).toBeUndefined();
  });

  it("removes the own install's chunks and summaries only", async () => {
    await artifactsOf('ns-a/acme').remove('t1');
    expect(await artifactsOf('ns-a/acme').summary('t1')).toBeUndefined();
    expect((await artifactsOf('ns-b/acme').summary('t1'))?.summary).toBe('B');
    expect([
      await count(indexes.results),
      await count(indexes.summary),
      await count(indexes.chunkSummary),
    ]).toEqual([2, 1, 1]);
  });
});
