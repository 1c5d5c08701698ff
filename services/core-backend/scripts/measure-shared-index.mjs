// Search latency of one tenant with 1 and with N tenants' passages in the shared knowledge index,
// and with the per-install layout (an index per tenant), through core-backend's own knowledge
// index code (build first: `npx tsc -b services/core-backend`). Vectors are made from the text
// (64 dimensions, no model): this measures OpenSearch, not retrieval quality.
//
//   OPENSEARCH_URL=http://127.0.0.1:59200 node services/core-backend/scripts/measure-shared-index.mjs [N] [passages] [queries]
//
// Prints one JSON line per condition: p50/p99 in ms of a hybrid search (BM25 + k-NN) and of a
// BM25 search, and the shard copies each tenant costs. Every index it made is deleted.
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { createKnowledgeIndex } from '../dist/retrieval/knowledge-index.js';

const url = process.env.OPENSEARCH_URL;
if (!url) throw new Error('OPENSEARCH_URL is not set');
const tenants = Number(process.argv[2] ?? 1000);
const perTenant = Number(process.argv[3] ?? 50);
const queries = Number(process.argv[4] ?? 300);
const perInstallIndexes = Math.min(tenants, Number(process.env.PER_INSTALL_INDEXES ?? 50));
const run = randomBytes(4).toString('hex');
const search = new Client({ node: url, requestTimeout: 120_000 });

const WORDS = (
  'budget travel invoice policy laptop holiday contract supplier payroll audit server backup ' +
  'password network printer meeting agenda office parking canteen library training safety ' +
  'security vendor license renewal quarter report revenue margin forecast hiring onboarding'
).split(' ');
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const sentence = () =>
  Array.from({ length: 14 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');

/** 64 dimensions from the words (a bag of hashed words): similar texts, near vectors. */
const embedder = {
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Array(64).fill(0);
      for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
        let h = 0;
        for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 9973;
        vector[h % 64] += 1;
      }
      vector[63] += 0.01;
      return vector;
    });
  },
};

const layoutOf = (tenant) => ({ tenant, shards: 1, replicas: 0 });
const passagesOf = (tenant) =>
  Array.from({ length: perTenant }, (_, position) => ({
    workspaceId: `ws-${tenant}`,
    resourceType: 'document',
    resourceId: `doc-${tenant}`,
    kind: 'chunk',
    position,
    title: `handbook ${position}.pdf`,
    text: sentence(),
  }));

async function load(knowledge, tenant) {
  await knowledge.replace(
    { resourceType: 'document', resourceId: `doc-${tenant}` },
    ['chunk'],
    passagesOf(tenant),
  );
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function latency(knowledge, tenant, mode) {
  const times = [];
  for (let i = 0; i < queries; i += 1) {
    const query = Array.from({ length: 3 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(
      ' ',
    );
    const started = process.hrtime.bigint();
    const hits = await knowledge.search({
      workspaceId: `ws-${tenant}`,
      query,
      visible: { document: 'all', audio: 'all' },
      k: 5,
      mode,
    });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (hits.some((hit) => hit.workspaceId !== `ws-${tenant}`))
      throw new Error('another tenant leaked');
  }
  times.sort((a, b) => a - b);
  return { p50: +percentile(times, 0.5).toFixed(2), p99: +percentile(times, 0.99).toFixed(2) };
}

async function measure(condition, knowledge, tenant, extra) {
  // Warm-up: the first queries load the index's structures.
  for (let i = 0; i < 20; i += 1)
    await knowledge.search({
      workspaceId: `ws-${tenant}`,
      query: 'budget',
      visible: { document: 'all', audio: 'all' },
      k: 5,
      mode: 'hybrid',
    });
  const hybrid = await latency(knowledge, tenant, 'hybrid');
  const bm25 = await latency(knowledge, tenant, 'bm25');
  process.stdout.write(`${JSON.stringify({ condition, hybrid, bm25, ...extra })}\n`);
}

const made = [];
try {
  // Shared: one index with tenant 0 alone, one with tenants 0..N-1; measured in turns, twice,
  // once the server is warm (the first condition measured would pay for the JIT otherwise).
  const alone = `measure-alone-${run}`;
  const shared = `measure-shared-${run}`;
  made.push(alone, shared);
  const first = createKnowledgeIndex({ search, index: alone, layout: layoutOf('t0'), embedder });
  await first.ensureIndex();
  await load(first, 't0');
  const crowded = createKnowledgeIndex({ search, index: shared, layout: layoutOf('t0'), embedder });
  await crowded.ensureIndex();
  for (let t = 0; t < tenants; t += 1) {
    await load(
      createKnowledgeIndex({ search, index: shared, layout: layoutOf(`t${t}`), embedder }),
      `t${t}`,
    );
  }
  await search.indices.refresh({ index: shared });
  const documents = (await search.count({ index: shared })).body.count;

  // Per install: an index each (1 shard, no replica), as many as a single test node takes.
  const own = (t) => `measure-own-${run}-${t}`;
  for (let t = 0; t < perInstallIndexes; t += 1) {
    made.push(own(t));
    const knowledge = createKnowledgeIndex({
      search,
      index: own(t),
      layout: layoutOf(undefined),
      embedder,
    });
    await knowledge.ensureIndex();
    await load(knowledge, `t${t}`);
  }
  const ownFirst = createKnowledgeIndex({
    search,
    index: own(0),
    layout: layoutOf(undefined),
    embedder,
  });
  for (let round = 1; round <= 2; round += 1) {
    await measure('shared, 1 tenant', first, 't0', { round, tenants: 1, documents: perTenant });
    await measure(`shared, ${tenants} tenants`, crowded, 't0', { round, tenants, documents });
    await measure(`perInstall, ${perInstallIndexes} tenants`, ownFirst, 't0', {
      round,
      tenants: perInstallIndexes,
      indexes: perInstallIndexes,
    });
  }
} finally {
  for (const index of made) await search.indices.delete({ index }).catch(() => {});
  await search.close();
}
