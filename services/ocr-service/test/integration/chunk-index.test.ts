/** The result index against a real OpenSearch: stored, paged, replaced without duplicates. */
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { requireEnv } from '@pelita/testenv';
import { createChunkIndex, type ChunkIndex } from '../../src/results/chunk-index';
import { chunkDocuments } from '../../src/results/chunks';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');

describe('chunk index', () => {
  const name = `pdf-parsing-results-test-${randomBytes(4).toString('hex')}`;
  const client = new Client({ node: OPENSEARCH_URL });
  let index: ChunkIndex;
  beforeAll(async () => {
    index = createChunkIndex(client, name);
    await index.ensure();
    await index.ensure(); // idempotent
  });
  afterAll(async () => {
    await fetch(`${OPENSEARCH_URL}/${name}`, { method: 'DELETE' });
    await client.close();
  });

  const output = (count: number) => ({
    contentList: Array.from({ length: count }, (_, i) => ({
      page: i + 1,
      type: 'text',
      content: `page ${i + 1}`,
    })),
    mdContentList: Array.from({ length: count }, (_, i) => ({
      page: i + 1,
      markdown: `page ${i + 1}`,
    })),
  });
  const chunksOf = (taskId: string, count: number) =>
    chunkDocuments(output(count), {
      taskId,
      pdfName: `${taskId}.pdf`,
      uploadedAt: new Date(),
      outputPdfFile: undefined,
      metadataDocument: { team: 'legal' },
    });

  it("stores a task's chunks and pages through them in chunk order", async () => {
    await index.store('t-12', chunksOf('t-12', 12));
    await index.store('other', chunksOf('other', 3));
    const first = await index.read('t-12', 1, 2);
    expect(first).toMatchObject({ page: 1, size: 2, total_documents: 3, total_pages: 2 });
    expect(first.documents.map((d) => d.id)).toEqual(['t-12_chunk_1', 't-12_chunk_2']);
    expect(first.documents[0]?.metadata_document).toEqual({ team: 'legal' });
    const second = await index.read('t-12', 2, 2);
    expect(second.documents.map((d) => d.chunk_number)).toEqual([3]);
    expect((await index.read('nobody', 1, 10)).total_documents).toBe(0);
  });

  it("replaces a task's chunks when it is indexed again: no duplicates, none left over", async () => {
    await index.store('again', chunksOf('again', 12));
    await index.store('again', chunksOf('again', 12));
    expect((await index.read('again', 1, 10)).total_documents).toBe(3);
    await index.store('again', chunksOf('again', 4));
    const after = await index.read('again', 1, 10);
    expect(after.documents.map((d) => d.id)).toEqual(['again_chunk_1']);
  });

  it('reports the cluster status', async () => {
    expect(['green', 'yellow']).toContain(await index.clusterStatus());
  });
});
