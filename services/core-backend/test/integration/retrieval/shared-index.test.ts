/**
 * Two installs (tenants) in one knowledge index on the real OpenSearch, with the same workspace
 * and document ids on purpose: each finds only its own passages, by BM25, k-NN and hybrid, and
 * deleting one's document leaves the other's. Then an install's per-install index moved into the
 * shared one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { requireEnv } from '@pelita/testenv';
import { createEmbedder } from '../../../src/retrieval/embeddings';
import {
  createKnowledgeIndex,
  type KnowledgeIndex,
  type Passage,
} from '../../../src/retrieval/knowledge-index';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');

describe('a knowledge index shared by two installs', () => {
  const search = new Client({ node: OPENSEARCH_URL });
  const index = `core-shared-${randomBytes(4).toString('hex')}`;
  const workspaceId = randomUUID();
  const documentId = randomUUID();
  const everything = { document: 'all' as const, audio: 'all' as const };
  let stub: LlmStub;
  let a: KnowledgeIndex;
  let b: KnowledgeIndex;

  const indexFor = (tenant: string | undefined, name = index) =>
    createKnowledgeIndex({
      search,
      index: name,
      layout: { tenant, shards: 1, replicas: 0 },
      embedder: createEmbedder({
        baseUrl: stub.url,
        apiKey: undefined,
        model: 'pelita-stub',
        timeoutMs: 10_000,
      }),
    });
  const passage = (text: string, position = 0, resourceId = documentId): Passage => ({
    workspaceId,
    resourceType: 'document',
    resourceId,
    kind: 'chunk',
    position,
    title: 'handbook.pdf',
    text,
  });
  const ask = (knowledge: KnowledgeIndex, query: string, mode: 'bm25' | 'hybrid', k = 60) =>
    knowledge.search({ workspaceId, query, visible: everything, k, mode });

  beforeAll(async () => {
    stub = await startLlmStub({ latencyMs: 0 });
    a = indexFor('tenant-a/acme');
    b = indexFor('tenant-b/acme');
    expect(await a.ensureIndex()).toBeUndefined();
    expect(await b.ensureIndex()).toBeUndefined();
    await a.replace(
      { resourceType: 'document', resourceId: documentId },
      ['chunk'],
      [
        passage('The travel budget of Acme A is approved by the finance director.'),
        passage('The canteen opens at eight.', 1),
      ],
    );
    // B: the same document id, and more passages than k-NN's candidates (50), all nearer a
    // question about revenue forecasts than A's: without the tenant inside k-NN's own filter the
    // 50 nearest would all be B's, and A would get none.
    await b.replace(
      { resourceType: 'document', resourceId: documentId },
      ['chunk'],
      Array.from({ length: 60 }, (_, i) =>
        passage(
          `The quarterly revenue forecast report of Acme B: travel budget approved by the finance director ${i}.`,
          i,
        ),
      ),
    );
  });
  afterAll(async () => {
    await search.indices.delete({ index }).catch(() => undefined);
    await search.close();
    await stub?.close();
  });

  it('keeps the two installs apart in one index with one shard, ids and all', async () => {
    const shards = await search.cat.shards({ index, format: 'json' });
    expect((shards.body as unknown[]).length).toBe(1);
    const count = await search.count({ index });
    expect(count.body.count).toBe(62);
  });

  it('finds only the own passages by BM25', async () => {
    const hitsA = await ask(a, 'travel budget finance director', 'bm25');
    expect(hitsA.map((hit) => hit.text)).toEqual([
      'The travel budget of Acme A is approved by the finance director.',
    ]);
    const hitsB = await ask(b, 'travel budget finance director', 'bm25');
    // Each query brings 50 candidates.
    expect(hitsB).toHaveLength(50);
    expect(hitsB.every((hit) => hit.text.includes('Acme B'))).toBe(true);
  });

  it("finds the own passages by k-NN, however many of another install's are nearer", async () => {
    // No word of the question is in A's passages: BM25 finds none, k-NN the nearest of A's.
    const hits = await ask(a, 'quarterly revenue forecast report', 'hybrid', 10);
    expect(hits.map((hit) => hit.text).sort()).toEqual([
      'The canteen opens at eight.',
      'The travel budget of Acme A is approved by the finance director.',
    ]);
    expect(hits.every((hit) => hit.matchedBy.join() === 'knn')).toBe(true);
  });

  it('finds only the own passages in hybrid mode, and reads only the own passages of a document', async () => {
    const hitsB = await ask(b, 'travel budget', 'hybrid', 100);
    expect(hitsB.length).toBeGreaterThanOrEqual(50);
    expect(hitsB.every((hit) => hit.text.includes('Acme B'))).toBe(true);
    const pageA = await a.passagesOf('document', documentId, 'chunk', { page: 1, limit: 100 });
    expect(pageA.rows.map((row) => row.text)).toEqual([
      'The travel budget of Acme A is approved by the finance director.',
      'The canteen opens at eight.',
    ]);
  });

  it("deleting one install's document leaves the other's", async () => {
    await a.remove('document', documentId);
    expect(await ask(a, 'travel budget', 'hybrid')).toEqual([]);
    const left = await b.passagesOf('document', documentId, 'chunk', { page: 1, limit: 100 });
    expect(left.total).toBe(60);
    await a.replace(
      { resourceType: 'document', resourceId: documentId },
      ['chunk'],
      [passage('Acme A is back.')],
    );
    await b.removeWorkspace(workspaceId);
    expect((await ask(a, 'Acme back', 'bm25')).map((hit) => hit.text)).toEqual(['Acme A is back.']);
    expect(await ask(b, 'travel budget', 'hybrid')).toEqual([]);
  });

  it("moves an install's own index into the shared one, where only it finds the passages", async () => {
    const legacy = `core-legacy-${randomBytes(4).toString('hex')}`;
    try {
      // The install before the upgrade: an index of its own, no tenant anywhere.
      const before = indexFor(undefined, legacy);
      await before.ensureIndex();
      await before.replace(
        { resourceType: 'document', resourceId: documentId },
        ['chunk'],
        [
          passage('Legacy handbook: the canteen opens at eight.', 0),
          passage('Legacy handbook: the library closes at six.', 1),
        ],
      );
      const c = indexFor('tenant-c/acme');
      expect(await c.moveLegacy(legacy)).toBe(2);
      expect((await search.indices.exists({ index: legacy })).body).toBe(false);
      const hits = await ask(c, 'canteen library', 'hybrid');
      expect(hits.map((hit) => hit.text).sort()).toEqual([
        'Legacy handbook: the canteen opens at eight.',
        'Legacy handbook: the library closes at six.',
      ]);
      expect(hits.every((hit) => hit.matchedBy.includes('knn'))).toBe(true);
      const ofA = await ask(a, 'canteen library', 'hybrid');
      expect(ofA.map((hit) => hit.text)).toEqual(['Acme A is back.']);
      // Run again (another replica, a later start): nothing left to move.
      expect(await c.moveLegacy(legacy)).toBe(0);
    } finally {
      await search.indices.delete({ index: legacy }).catch(() => undefined);
    }
  });
});
