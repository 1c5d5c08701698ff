/**
 * The two summary indexes the seed names: `summarize_document` (id: the task id; the final
 * summary) and `summarize_document_chunk` (id: `{task_id}_{chunk_index}`; one chunk summary
 * each, bulk inserted). Deterministic ids: a task summarised twice overwrites, never doubles.
 */
import type { Client } from '@opensearch-project/opensearch';
import { moveLegacyIndex, tenantIndex, type SearchLayout, type SummaryFile } from '@pelita/kit';

export interface SummaryIndexNames {
  document: string;
  chunk: string;
}

export interface SummaryIndex {
  /** Creates the two indexes unless they exist. */
  ensure(): Promise<void>;
  store(taskId: string, pdfName: string, summary: SummaryFile): Promise<void>;
  /** Moves the summaries of the install's own indexes before it shared these. */
  moveLegacy(legacy: Partial<SummaryIndexNames>): Promise<number>;
}

// Ids are looked up as keywords; the model's lists and entities are kept as sent, not indexed
// (their keys would otherwise add a field per entity type to an index many installs share).
const KEPT = { type: 'object', enabled: false } as const;
const MAPPINGS = {
  properties: {
    task_id: { type: 'keyword' },
    pdf_name: { type: 'keyword' },
    summary: { type: 'text' },
    key_points: KEPT,
    topics: KEPT,
    named_entities: KEPT,
    created_at: { type: 'date' },
  },
};

/**
 * `client` is shared with the other indexes; its owner closes it. `layout`: whether the indexes
 * are shared with other installs, and their shards and replicas.
 */
export function createSummaryIndex(
  client: Client,
  names: SummaryIndexNames,
  layout: SearchLayout = {},
): SummaryIndex {
  const documents = tenantIndex(client, names.document, layout);
  const chunks = tenantIndex(client, names.chunk, layout);
  return {
    async ensure() {
      await documents.create({ mappings: MAPPINGS });
      await chunks.create({
        mappings: { properties: { ...MAPPINGS.properties, chunk_index: { type: 'integer' } } },
      });
    },
    async store(taskId, pdfName, summary) {
      const createdAt = new Date().toISOString();
      // Chunk summaries first: the document's summary is what readers wait for (the core backend
      // marks the document summarised when it appears), so all of it is there by then — and a
      // deletion that follows finds every chunk summary to remove.
      try {
        await chunks.bulk(
          summary.summarize_chunk.map((chunk) => ({
            index: {
              id: `${taskId}_${chunk.chunk_index}`,
              document: {
                task_id: taskId,
                pdf_name: pdfName,
                chunk_index: chunk.chunk_index,
                summary: chunk.summary,
                key_points: chunk.key_points,
                topics: chunk.topics,
                named_entities: chunk.named_entities,
                original_tokens: chunk.original_tokens,
                summary_tokens: chunk.summary_tokens,
                created_at: createdAt,
              },
            },
          })),
          'wait_for',
        );
      } catch (err) {
        throw new Error(`while storing the chunk summaries of ${taskId}`, { cause: err });
      }
      await documents.put(
        taskId,
        {
          task_id: taskId,
          pdf_name: pdfName,
          summary: summary.final_summary.summary,
          key_points: summary.final_summary.key_points_model,
          topics: summary.final_summary.topics_aggregated,
          named_entities: summary.final_summary.named_entities,
          total_initial_chunks: summary.total_initial_chunks,
          final_summary_tokens: summary.final_summary_tokens,
          created_at: createdAt,
        },
        'wait_for',
      );
    },
    async moveLegacy(legacy) {
      return (
        (await moveLegacyIndex(client, legacy.document, documents)) +
        (await moveLegacyIndex(client, legacy.chunk, chunks))
      );
    },
  };
}
