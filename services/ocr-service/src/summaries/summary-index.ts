/**
 * The two summary indexes the seed names: `summarize_document` (id: the task id; the final
 * summary) and `summarize_document_chunk` (id: `{task_id}_{chunk_index}`; one chunk summary
 * each, bulk inserted). Deterministic ids: a task summarised twice overwrites, never doubles.
 */
import type { Client } from '@opensearch-project/opensearch';
import type { SummaryFile } from '@pelita/kit';

export interface SummaryIndexNames {
  document: string;
  chunk: string;
}

export interface SummaryIndex {
  store(taskId: string, pdfName: string, summary: SummaryFile): Promise<void>;
}

/** `client` is shared with the other indexes; its owner closes it. */
export function createSummaryIndex(client: Client, names: SummaryIndexNames): SummaryIndex {
  return {
    async store(taskId, pdfName, summary) {
      const createdAt = new Date().toISOString();
      await client.index({
        index: names.document,
        id: taskId,
        refresh: 'wait_for',
        body: {
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
      });
      if (summary.summarize_chunk.length === 0) return;
      const result = await client.bulk({
        refresh: 'wait_for',
        body: summary.summarize_chunk.flatMap((chunk) => [
          { index: { _index: names.chunk, _id: `${taskId}_${chunk.chunk_index}` } },
          {
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
        ]),
      });
      if (result.body.errors) throw new Error(`while storing the chunk summaries of ${taskId}`);
    },
  };
}
