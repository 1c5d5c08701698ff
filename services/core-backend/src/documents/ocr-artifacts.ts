/**
 * What the OCR pipeline leaves behind for a document, read and removed by the core backend:
 * the chunks in the result index, the summaries in the two summary indexes (the seed's names)
 * and the stored PDF in object storage (`ocr-documents/{task_id}.pdf`). Removal is by id
 * (delete-by-query is a module some distributions lack) and tolerates what is already gone.
 */
import type { ObjectStore } from '@pelita/kit/object-store';
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
  objects: ObjectStore | undefined;
}) {
  const { search, indexes } = options;

  async function removeMatching(index: string, field: string, taskId: string): Promise<void> {
    for (;;) {
      const found = await search
        .search({
          index,
          body: { query: { term: { [field]: taskId } }, _source: false, size: 1000 },
        })
        .catch((err: unknown) => {
          if (String(err).includes('index_not_found')) return undefined;
          throw err;
        });
      const ids = (found?.body.hits.hits ?? [])
        .map((hit) => hit._id)
        .filter((id) => id !== undefined);
      if (ids.length === 0) return;
      await search.bulk({
        body: ids.map((id) => ({ delete: { _index: index, _id: id } })),
        refresh: true,
      });
    }
  }

  return {
    /** The document summary, once the OCR worker's summary hand-off has written it. */
    async summary(taskId: string): Promise<DocumentSummary | undefined> {
      const found = await search
        .get({ index: indexes.summary, id: taskId })
        .catch((err: unknown) => {
          if ((err as { meta?: { statusCode?: number } }).meta?.statusCode === 404)
            return undefined;
          throw err;
        });
      const source = found?.body._source as
        | { summary?: string; key_points?: unknown; topics?: unknown; named_entities?: unknown }
        | undefined;
      if (!source?.summary) return undefined;
      return {
        summary: source.summary,
        keyPoints: source.key_points ?? [],
        topics: source.topics ?? [],
        namedEntities: source.named_entities ?? {},
      };
    },

    async remove(taskId: string): Promise<void> {
      await removeMatching(indexes.results, 'pdf_id', taskId);
      await removeMatching(indexes.chunkSummary, 'task_id', taskId);
      await search
        .delete({ index: indexes.summary, id: taskId, refresh: true })
        .catch((err: unknown) => {
          if ((err as { meta?: { statusCode?: number } }).meta?.statusCode !== 404) throw err;
        });
      await options.objects?.remove(`ocr-documents/${taskId}.pdf`);
    },
  };
}

export type OcrArtifacts = ReturnType<typeof createOcrArtifacts>;
