/**
 * The result index (`pdf-parsing-results` by default) in OpenSearch. Writes are idempotent: the
 * ids are deterministic, so a task delivered twice (a worker died after indexing) overwrites its
 * chunks instead of doubling them, and chunks a shorter re-run no longer has are removed.
 */
import type { Client } from '@opensearch-project/opensearch';
import { createIndexUnlessExists } from '@pelita/kit';
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

/** `client` is shared with the other indexes; its owner closes it. */
export function createChunkIndex(client: Client, index: string): ChunkIndex {
  return {
    async ensure() {
      await createIndexUnlessExists(client, index, { mappings: MAPPINGS });
    },
    async store(taskId, chunks) {
      const body = chunks.flatMap((chunk) => [{ index: { _index: index, _id: chunk.id } }, chunk]);
      const result = await client.bulk({ body, refresh: 'wait_for' });
      if (result.body.errors) {
        const reason = result.body.items.find((item) => item.index?.error)?.index?.error?.reason;
        throw new Error(
          `while indexing the chunks of ${taskId}: ${reason ?? 'a bulk item failed'}`,
        );
      }
      // Chunks an earlier run wrote beyond this one's (delete-by-query is a plugin some
      // distributions lack, so the leftovers are looked up and deleted by id).
      const kept = new Set(chunks.map((chunk) => chunk.id));
      const existing = await client.search({
        index,
        body: { query: { term: { pdf_id: taskId } }, _source: false, size: 10_000 },
      });
      const leftovers = existing.body.hits.hits
        .map((hit) => hit._id)
        .filter((id): id is string => id !== undefined && !kept.has(id));
      if (leftovers.length > 0) {
        await client.bulk({
          body: leftovers.map((id) => ({ delete: { _index: index, _id: id } })),
          refresh: 'wait_for',
        });
      }
    },
    async read(taskId, page, size) {
      const result = await client.search({
        index,
        body: {
          query: { term: { pdf_id: taskId } },
          sort: [{ chunk_number: { order: 'asc' } }],
          from: (page - 1) * size,
          size,
          track_total_hits: true,
        },
      });
      const total = result.body.hits.total;
      const totalDocuments = typeof total === 'number' ? total : (total?.value ?? 0);
      return {
        page,
        size,
        total_documents: totalDocuments,
        total_pages: Math.ceil(totalDocuments / size),
        documents: result.body.hits.hits.map((hit) => hit._source as ChunkDocument),
      };
    },
    async clusterStatus() {
      return String((await client.cluster.health()).body.status);
    },
  };
}
