/**
 * The knowledge index against the real OpenSearch (with the k-NN plugin) and embeddings from the
 * LLM stand-in's `/v1/embeddings`: recall@5 of BM25 alone and of hybrid retrieval on a corpus
 * made here, and the access filter (a passage the caller may not use never comes back).
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
import { DISTRACTORS, FACTS } from './corpus';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
const K = 5;

describe('retrieval over the knowledge index', () => {
  const search = new Client({ node: OPENSEARCH_URL });
  const index = `core-retrieval-${randomBytes(4).toString('hex')}`;
  const workspaceId = randomUUID();
  const otherWorkspace = randomUUID();
  const documentIds = new Map<string, string>();
  let stub: LlmStub;
  let knowledge: KnowledgeIndex;

  const idOf = (document: string) => {
    if (!documentIds.has(document)) documentIds.set(document, randomUUID());
    return documentIds.get(document)!;
  };
  const everything = { document: 'all' as const, audio: 'all' as const };

  beforeAll(async () => {
    stub = await startLlmStub({ latencyMs: 0 });
    knowledge = createKnowledgeIndex({
      search,
      index,
      embedder: createEmbedder({
        baseUrl: stub.url,
        apiKey: undefined,
        model: 'pelita-stub',
        timeoutMs: 10_000,
      }),
    });
    await knowledge.ensureIndex();
    const byDocument = new Map<string, string[]>();
    for (const { document, text } of [...FACTS, ...DISTRACTORS]) {
      byDocument.set(document, [...(byDocument.get(document) ?? []), text]);
    }
    for (const [document, texts] of byDocument) {
      const passages: Passage[] = texts.map((text, position) => ({
        workspaceId,
        resourceType: 'document',
        resourceId: idOf(document),
        kind: 'chunk',
        position,
        title: `${document}.pdf`,
        text,
      }));
      await knowledge.replace(
        { resourceType: 'document', resourceId: idOf(document) },
        ['chunk'],
        passages,
      );
    }
    // The same text in another workspace: never found from this one.
    await knowledge.replace(
      { resourceType: 'document', resourceId: randomUUID() },
      ['chunk'],
      [
        {
          workspaceId: otherWorkspace,
          resourceType: 'document',
          resourceId: randomUUID(),
          kind: 'chunk',
          position: 0,
          title: 'x.pdf',
          text: FACTS[0]!.text,
        },
      ],
    );
  });
  afterAll(async () => {
    await search.indices.delete({ index }).catch(() => undefined);
    await search.close();
    await stub?.close();
  });

  /** Share of the questions whose answering passage is among the first `k` hits. */
  async function recallAt(k: number, mode: 'bm25' | 'hybrid'): Promise<number> {
    let found = 0;
    for (const fact of FACTS) {
      const hits = await knowledge.search({
        workspaceId,
        query: fact.question,
        visible: everything,
        k,
        mode,
      });
      if (hits.some((hit) => hit.text === fact.text)) found += 1;
    }
    return found / FACTS.length;
  }

  it('finds the answering passage in the top 5 for most questions, with and without vectors', async () => {
    const bm25 = await recallAt(K, 'bm25');
    const hybrid = await recallAt(K, 'hybrid');
    const [bm25First, hybridFirst] = [await recallAt(1, 'bm25'), await recallAt(1, 'hybrid')];
    // The figures of the closing note come from this line.
    process.stdout.write(
      `${FACTS.length} questions, ${FACTS.length + DISTRACTORS.length} passages: recall@${K} BM25 ${bm25.toFixed(2)}, hybrid ${hybrid.toFixed(2)}; recall@1 BM25 ${bm25First.toFixed(2)}, hybrid ${hybridFirst.toFixed(2)}\n`,
    );
    expect(bm25).toBeGreaterThanOrEqual(0.6);
    expect(hybrid).toBeGreaterThanOrEqual(0.6);
  });

  it('uses both queries in hybrid mode and only BM25 in bm25 mode', async () => {
    const question = FACTS[4]!.question;
    const hybrid = await knowledge.search({
      workspaceId,
      query: question,
      visible: everything,
      k: K,
      mode: 'hybrid',
    });
    expect(hybrid.some((hit) => hit.matchedBy.includes('knn'))).toBe(true);
    const bm25 = await knowledge.search({
      workspaceId,
      query: question,
      visible: everything,
      k: K,
      mode: 'bm25',
    });
    expect(bm25.every((hit) => hit.matchedBy.join() === 'bm25')).toBe(true);
  });

  it('returns only passages of the workspace and of documents the caller may use', async () => {
    const finance = idOf('finance');
    const hits = await knowledge.search({
      workspaceId,
      query: 'approves the invoicing batch travel expenses employees laptop',
      visible: { document: [finance], audio: [] },
      k: 20,
      mode: 'hybrid',
    });
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((hit) => hit.resourceId))).toEqual(new Set([finance]));

    const none = await knowledge.search({
      workspaceId,
      query: FACTS[0]!.question,
      visible: { document: [], audio: [] },
      k: 5,
      mode: 'hybrid',
    });
    expect(none).toEqual([]);
    const elsewhere = await knowledge.search({
      workspaceId: randomUUID(),
      query: FACTS[0]!.question,
      visible: everything,
      k: 5,
      mode: 'hybrid',
    });
    expect(elsewhere).toEqual([]);
  });

  it('narrows to the chosen documents (topics) and leaves audios out then', async () => {
    const hr = idOf('hr');
    const hits = await knowledge.search({
      workspaceId,
      query: 'who approves',
      visible: everything,
      documents: [hr],
      k: 10,
      mode: 'hybrid',
    });
    expect(hits.every((hit) => hit.resourceId === hr)).toBe(true);
  });

  it('replaces all passages of a resource and removes them', async () => {
    const it = idOf('it');
    await knowledge.replace(
      { resourceType: 'document', resourceId: it },
      ['chunk'],
      [
        {
          workspaceId,
          resourceType: 'document',
          resourceId: it,
          kind: 'chunk',
          position: 0,
          title: 'it.pdf',
          text: 'Only this sentence about kettles is left.',
        },
      ],
    );
    const left = await knowledge.search({
      workspaceId,
      query: 'passwords expire ninety days kettles',
      visible: { document: [it], audio: [] },
      k: 10,
      mode: 'bm25',
    });
    expect(left.map((hit) => hit.text)).toEqual(['Only this sentence about kettles is left.']);
    await knowledge.remove('document', it);
    const gone = await knowledge.search({
      workspaceId,
      query: 'kettles',
      visible: { document: [it], audio: [] },
      k: 10,
      mode: 'bm25',
    });
    expect(gone).toEqual([]);
  });

  it("falls back to BM25, and says why, when the index cannot take the embedder's vectors", async () => {
    // An index made without vectors (no embeddings model then), used with one now.
    const plainIndex = `core-retrieval-plain-${randomBytes(4).toString('hex')}`;
    try {
      await createKnowledgeIndex({ search, index: plainIndex, embedder: undefined }).ensureIndex();
      const later = createKnowledgeIndex({
        search,
        index: plainIndex,
        embedder: createEmbedder({
          baseUrl: stub.url,
          apiKey: undefined,
          model: 'pelita-stub',
          timeoutMs: 10_000,
        }),
      });
      expect(await later.ensureIndex()).toMatch(/made without vectors: retrieval is BM25 only/);
      const id = randomUUID();
      await later.replace(
        { resourceType: 'document', resourceId: id },
        ['chunk'],
        [
          {
            workspaceId,
            resourceType: 'document',
            resourceId: id,
            kind: 'chunk',
            position: 0,
            title: 'ferry.pdf',
            text: 'The ferry leaves at nine.',
          },
        ],
      );
      const hits = await later.search({
        workspaceId,
        query: 'when does the ferry leave',
        visible: everything,
        k: 5,
        mode: 'hybrid',
      });
      expect(hits.map((hit) => [hit.text, hit.matchedBy])).toEqual([
        ['The ferry leaves at nine.', ['bm25']],
      ]);
    } finally {
      await search.indices.delete({ index: plainIndex });
    }
  });
});
