/**
 * The result index (`pdf-parsing-results` by default) in OpenSearch. Writes are idempotent: the
 * ids are deterministic, so a task delivered twice (a worker died after indexing) overwrites its
 * chunks instead of doubling them, and chunks a shorter re-run no longer has are removed.
 */
import type { Client } from '@opensearch-project/opensearch';
import { errorMessage, moveLegacyIndex, tenantIndex, type SearchLayout } from '@pelita/kit';
import type { ChunkDocument } from './chunks';

export interface ChunkPage {
  page: number;
  size: number;
  total_documents: number;
  total_pages: number;
  documents: ChunkDocument[];
}

export interface ChunkIndex {
  ensure(): Promise<void>;
  /** Stores the chunks of one task (replacing any it had) and makes them searchable at once. */
  store(taskId: string, chunks: ChunkDocument[]): Promise<void>;
  /** The chunks of one task, by chunk number, `size` per page (pages from 1). */
  read(taskId: string, page: number, size: number): Promise<ChunkPage>;
  /** Cluster status (`green`, `yellow`, `red`) for the health endpoint. */
  clusterStatus(): Promise<string>;
  /** Moves the chunks of `legacy`, the install's own index before it shared this one. */
  moveLegacy(legacy: string): Promise<number>;
}

const MAPPINGS = {
  properties: {
    id: { type: 'keyword' },
    chunk_number: { type: 'integer' },
    pdf_name: { type: 'keyword' },
    pdf_id: { type: 'keyword' },
    parse_method: { type: 'keyword' },
    uploaded_at: { type: 'date' },
    output_path: { type: 'keyword' },
    output_pdf_file: { type: 'keyword', index: false },
    content_list: {
      properties: {
        page: { type: 'integer' },
        type: { type: 'keyword' },
        content: { type: 'text' },
      },
    },
    md_content_list: { properties: { page: { type: 'integer' }, markdown: { type: 'text' } } },
    // Whatever the caller sent: stored and returned, not interpreted.
    metadata_document: { type: 'object', enabled: false },
  },
} as const;

/**
 * `client` is shared with the other indexes; its owner closes it. `layout`: whether the index is
 * shared with other installs (each reads only its own chunks), and its shards and replicas.
 */
export function createChunkIndex(
  client: Client,
  index: string,
  layout: SearchLayout = {},
): ChunkIndex {
  const results = tenantIndex(client, index, layout);
  return {
    async ensure() {
      await results.create({ mappings: MAPPINGS });
    },
    async store(taskId, chunks) {
      try {
        await results.bulk(
          chunks.map((chunk) => ({ index: { id: chunk.id, document: { ...chunk } } })),
          'wait_for',
        );
      } catch (err) {
        throw new Error(`while indexing the chunks of ${taskId}: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      // Chunks an earlier run wrote beyond this one's (delete-by-query is a plugin some
      // distributions lack, so the leftovers are looked up and deleted by id).
      const kept = new Set(chunks.map((chunk) => chunk.id));
      const existing = await results.search({
        query: { term: { pdf_id: taskId } },
        _source: false,
        size: 10_000,
      });
      const leftovers = existing.hits.map((hit) => hit.id).filter((id) => !kept.has(id));
      await results.bulk(
        leftovers.map((id) => ({ delete: { id } })),
        'wait_for',
      );
    },
    async read(taskId, page, size) {
      const { hits, total } = await results.search<ChunkDocument & { tenant?: string }>({
        query: { term: { pdf_id: taskId } },
        sort: [{ chunk_number: { order: 'asc' } }],
        from: (page - 1) * size,
        size,
        track_total_hits: true,
      });
      return {
        page,
        size,
        total_documents: total,
        total_pages: Math.ceil(total / size),
        // The tenant is the index's bookkeeping, not part of the seed's document.
        documents: hits.map(({ source: { tenant: _tenant, ...chunk } }) => chunk),
      };
    },
    async clusterStatus() {
      return String((await client.cluster.health()).body.status);
    },
    moveLegacy: (legacy) => moveLegacyIndex(client, legacy, results),
  };
}
