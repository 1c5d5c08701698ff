/**
 * What the OCR pipeline leaves behind for a document, read and removed by the core backend:
 * the chunks in the result index, the summaries in the two summary indexes (the seed's names)
 * and the stored PDF in object storage (`ocr-documents/{task_id}.pdf`). Removal is by id
 * (delete-by-query is a module some distributions lack) and tolerates what is already gone.
 */
import type { ObjectStore } from '@pelita/kit/object-store';
import { tenantIndex, type SearchLayout, type TenantIndex } from '@pelita/kit';
import type { Client } from '@opensearch-project/opensearch';

export interface OcrIndexes {
  results: string;
  summary: string;
  chunkSummary: string;
}

export interface DocumentSummary {
  summary: string;
  keyPoints: unknown;
  topics: unknown;
  namedEntities: unknown;
}

export function createOcrArtifacts(options: {
  search: Client;
  indexes: OcrIndexes;
  /** Whether the indexes are shared with other installs (the ocr-service's SEARCH_TENANT). */
  layout?: SearchLayout;
  objects: ObjectStore | undefined;
}) {
  const { search, indexes, layout = {} } = options;
  const results = tenantIndex(search, indexes.results, layout);
  const summaries = tenantIndex(search, indexes.summary, layout);
  const chunkSummaries = tenantIndex(search, indexes.chunkSummary, layout);

  async function removeMatching(index: TenantIndex, field: string, taskId: string): Promise<void> {
    await index.deleteWhere({ term: { [field]: taskId } }).catch((err: unknown) => {
      if (!String(err).includes('index_not_found')) throw err;
    });
  }

  return {
    /** The document summary, once the OCR worker's summary hand-off has written it. */
    async summary(taskId: string): Promise<DocumentSummary | undefined> {
      const source = await summaries.get<{
        summary?: string;
        key_points?: unknown;
        topics?: unknown;
        named_entities?: unknown;
      }>(taskId);
      if (!source?.summary) return undefined;
      return {
        summary: source.summary,
        keyPoints: source.key_points ?? [],
        topics: source.topics ?? [],
        namedEntities: source.named_entities ?? {},
      };
    },

    async remove(taskId: string): Promise<void> {
      await removeMatching(results, 'pdf_id', taskId);
      await removeMatching(chunkSummaries, 'task_id', taskId);
      await summaries.delete(taskId, true);
      await options.objects?.remove(`ocr-documents/${taskId}.pdf`);
    },
  };
}

export type OcrArtifacts = ReturnType<typeof createOcrArtifacts>;
