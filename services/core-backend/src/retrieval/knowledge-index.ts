/**
 * The knowledge index of an install: every passage a chat can be answered from (document chunks,
 * document summaries, audio transcript chunks and summaries), one OpenSearch index for all
 * workspaces, each passage tagged with its workspace and resource so every query is filtered
 * to what the caller may use.
 *
 * Hybrid retrieval: a BM25 `match` query and, when embeddings are configured, a k-NN query on
 * the passage vectors (lucene HNSW, cosine), each with the same filter, fused by reciprocal
 * rank (RRF, k = 60): scores of the two never need to be put on one scale.
 */
import type { Client } from '@opensearch-project/opensearch';
import { moveLegacyIndex, tenantIndex, type ScopedHit, type SearchLayout } from '@pelita/kit';
import type { ResourceType, Visible } from '../access/access-lists';
import type { Embedder } from './embeddings';

/** Resource types whose passages are indexed. */
export type IndexedType = Extract<ResourceType, 'document' | 'audio'>;

export interface Passage {
  workspaceId: string;
  resourceType: IndexedType;
  resourceId: string;
  /** `chunk` (document text), `summary`, `transcript` (audio). */
  kind: 'chunk' | 'summary' | 'transcript';
  /** Position among the resource's passages of this kind (from 0). */
  position: number;
  /** The document's or audio's name, searched with a boost. */
  title: string;
  text: string;
  /** Free-form: pages of a chunk, speakers of a transcript segment. */
  metadata?: Record<string, unknown>;
}

export interface Hit extends Passage {
  id: string;
  score: number;
  /** Which of the two queries found it. */
  matchedBy: Array<'bm25' | 'knn'>;
}

export interface SearchRequest {
  workspaceId: string;
  query: string;
  /** What the caller may use, per type (see the access lists). */
  visible: Record<IndexedType, Visible>;
  /** Only these documents (the chosen topics); audios are left out when set. */
  documents?: string[];
  k: number;
  mode: 'hybrid' | 'bm25';
}

const RRF_K = 60;
/** Candidates each query contributes before fusion. */
const CANDIDATES = 50;

export interface KnowledgeIndexOptions {
  search: Client;
  index: string;
  /** Whether `index` is shared with other installs (SEARCH_TENANT), and its shape. */
  layout?: SearchLayout;
  embedder: Embedder | undefined;
}

export function createKnowledgeIndex({
  search,
  index,
  layout = {},
  embedder: configured,
}: KnowledgeIndexOptions) {
  const passages = tenantIndex(search, index, layout);
  // The embedder in use: none when the index's vectors are of another dimension (below).
  let embedder = configured;
  const passageId = (p: Passage) => `${p.resourceType}:${p.resourceId}:${p.kind}:${p.position}`;

  const removeWhere = (filter: object[]) => passages.deleteWhere({ bool: { filter } });

  /** The filter every query carries: this workspace, and only what the caller may use. */
  function accessFilter(request: SearchRequest): object[] | undefined {
    const allowed = (type: IndexedType): object | undefined => {
      let ids: Visible = request.visible[type];
      if (type === 'document' && request.documents) {
        const chosen = request.documents;
        ids = ids === 'all' ? chosen : ids.filter((id) => chosen.includes(id));
      } else if (type === 'audio' && request.documents) {
        return undefined;
      }
      if (ids !== 'all' && ids.length === 0) return undefined;
      return {
        bool: {
          filter: [
            { term: { resource_type: type } },
            ...(ids === 'all' ? [] : [{ terms: { resource_id: ids } }]),
          ],
        },
      };
    };
    const types = (['document', 'audio'] as const)
      .map(allowed)
      .filter((clause) => clause !== undefined);
    if (types.length === 0) return undefined;
    return [
      { term: { workspace_id: request.workspaceId } },
      { bool: { should: types, minimum_should_match: 1 } },
    ];
  }

  const toPassage = (s: Source): Passage => ({
    workspaceId: s.workspace_id,
    resourceType: s.resource_type,
    resourceId: s.resource_id,
    kind: s.kind,
    position: s.position,
    title: s.title,
    text: s.text,
    ...(s.metadata ? { metadata: s.metadata } : {}),
  });

  type Source = {
    workspace_id: string;
    resource_type: IndexedType;
    resource_id: string;
    kind: Passage['kind'];
    position: number;
    title: string;
    text: string;
    metadata?: Record<string, unknown>;
  };

  async function ranked(body: { query: Record<string, unknown> }) {
    const answer = await passages.search<Source>({
      ...body,
      size: CANDIDATES,
      _source: { excludes: ['embedding'] },
    });
    return answer.hits;
  }

  return {
    /**
     * Creates the index when missing (vectors of the embedder's dimension when it has one). An
     * index made earlier for another dimension (the embeddings model changed), or without
     * vectors, cannot take this embedder's: retrieval is then BM25 only, and the problem is
     * returned for the caller to say (re-indexing into a new KNOWLEDGE_INDEX brings vectors back).
     */
    async ensureIndex(): Promise<string | undefined> {
      const dimension = configured ? (await configured.embed(['dimension probe']))[0]!.length : 0;
      const existed = await passages.create({
        // `index.knn` exists only with the k-NN plugin, needed only for vectors.
        ...(dimension > 0 ? { settings: { index: { knn: true } } } : {}),
        mappings: {
          properties: {
            workspace_id: { type: 'keyword' },
            resource_type: { type: 'keyword' },
            resource_id: { type: 'keyword' },
            kind: { type: 'keyword' },
            position: { type: 'integer' },
            title: { type: 'text' },
            text: { type: 'text' },
            metadata: { type: 'object', enabled: false },
            ...(dimension > 0
              ? {
                  embedding: {
                    type: 'knn_vector',
                    dimension,
                    method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil' },
                  },
                }
              : {}),
          },
        },
      });
      if (!existed || !configured) return undefined;
      const mapping = await search.indices.getMapping({ index });
      const properties = (
        Object.values(mapping.body)[0] as {
          mappings?: { properties?: { embedding?: { dimension?: number } } };
        }
      )?.mappings?.properties;
      const existing = properties?.embedding?.dimension;
      if (existing === dimension) return undefined;
      embedder = undefined;
      return existing === undefined
        ? `the index ${index} was made without vectors: retrieval is BM25 only`
        : `the index ${index} holds vectors of dimension ${existing}, the embeddings model gives ${dimension}: retrieval is BM25 only until the passages are indexed again into a new KNOWLEDGE_INDEX`;
    },

    /**
     * Replaces every passage of the given kinds of one resource by `passages` (all of that
     * resource and kinds): a re-processed document leaves nothing of its old text behind.
     */
    async replace(
      resource: { resourceType: IndexedType; resourceId: string },
      kinds: Array<Passage['kind']>,
      given: Passage[],
    ): Promise<void> {
      await removeWhere([
        { term: { resource_type: resource.resourceType } },
        { term: { resource_id: resource.resourceId } },
        { terms: { kind: kinds } },
      ]);
      if (given.length === 0) return;
      const vectors = embedder
        ? await embedder.embed(given.map((p) => `${p.title}\n${p.text}`))
        : [];
      await passages.bulk(
        given.map((p, i) => ({
          index: {
            id: passageId(p),
            document: {
              workspace_id: p.workspaceId,
              resource_type: p.resourceType,
              resource_id: p.resourceId,
              kind: p.kind,
              position: p.position,
              title: p.title,
              text: p.text,
              ...(p.metadata ? { metadata: p.metadata } : {}),
              ...(vectors[i] ? { embedding: vectors[i] } : {}),
            },
          },
        })),
        true,
      );
    },

    /** Moves the passages of `legacy`, the install's own index before it shared this one. */
    moveLegacy: (legacy: string | undefined) => moveLegacyIndex(search, legacy, passages),

    /** The passages of one kind of a resource, in order (a page of them). */
    async passagesOf(
      resourceType: IndexedType,
      resourceId: string,
      kind: Passage['kind'],
      paging: { page: number; limit: number },
    ): Promise<{ rows: Passage[]; total: number }> {
      const answer = await passages.search<Source>({
        query: {
          bool: {
            filter: [
              { term: { resource_type: resourceType } },
              { term: { resource_id: resourceId } },
              { term: { kind } },
            ],
          },
        },
        sort: [{ position: 'asc' }],
        from: (paging.page - 1) * paging.limit,
        size: paging.limit,
        track_total_hits: true,
        _source: { excludes: ['embedding'] },
      });
      return { rows: answer.hits.map((hit) => toPassage(hit.source)), total: answer.total };
    },

    /** Removes every passage of a resource. */
    async remove(resourceType: IndexedType, resourceId: string): Promise<void> {
      await removeWhere([
        { term: { resource_type: resourceType } },
        { term: { resource_id: resourceId } },
      ]);
    },

    /** Removes every passage of a workspace (it is being deleted). */
    async removeWorkspace(workspaceId: string): Promise<void> {
      await removeWhere([{ term: { workspace_id: workspaceId } }]);
    },

    /** The k best passages the caller may use, best first. */
    async search(request: SearchRequest): Promise<Hit[]> {
      const filter = accessFilter(request);
      if (!filter || request.query.trim() === '') return [];
      const lists: Array<{ by: 'bm25' | 'knn'; hits: Array<ScopedHit<Source>> }> = [
        {
          by: 'bm25',
          hits: await ranked({
            query: {
              bool: {
                filter,
                must: {
                  multi_match: { query: request.query, fields: ['text', 'title^2'] },
                },
              },
            },
          }),
        },
      ];
      if (request.mode === 'hybrid' && embedder) {
        const [vector] = await embedder.embed([request.query]);
        lists.push({
          by: 'knn',
          hits: await ranked({
            query: {
              knn: { embedding: { vector, k: CANDIDATES, filter: { bool: { filter } } } },
            },
          }),
        });
      }
      const fused = new Map<string, Hit>();
      for (const { by, hits } of lists) {
        hits.forEach((hit, rank) => {
          const score = 1 / (RRF_K + rank + 1);
          const known = fused.get(hit.id);
          if (known) {
            known.score += score;
            known.matchedBy.push(by);
            return;
          }
          fused.set(hit.id, { ...toPassage(hit.source), id: hit.id, score, matchedBy: [by] });
        });
      }
      return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, request.k);
    },

    async ping(): Promise<void> {
      await search.ping();
    },
  };
}

export type KnowledgeIndex = ReturnType<typeof createKnowledgeIndex>;
