/**
 * What processing made of a document, for a member who may use it: the OCR result with its chunk
 * passages (in order, a page of them) and the summary. `documents.find` decides access first
 * (`knowledge.read`, then the document's access list).
 */
import { HttpError } from '@pelita/kit';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';
import type { Actor } from '../workspaces/actor';
import type { DocumentRepository } from './document-repository';
import type { Documents } from './documents';

export function createDocumentResults(deps: {
  repository: Pick<DocumentRepository, 'ocrResult' | 'summary'>;
  documents: Documents;
  knowledge: KnowledgeIndex;
}) {
  return {
    async ocrResult(actor: Actor, documentId: string, paging: { page: number; limit: number }) {
      const document = await deps.documents.find(actor, documentId);
      const result = await deps.repository.ocrResult(document.id);
      if (!result) {
        throw new HttpError(404, 'ocr_result_not_found', 'The document has no OCR result yet');
      }
      const passages = await deps.knowledge.passagesOf('document', document.id, 'chunk', paging);
      return {
        document_id: document.id,
        result_index: result.result_index,
        pages: result.pages,
        characters: result.characters,
        chunks: {
          data: passages.rows.map((p) => ({
            position: p.position,
            chunk_id: typeof p.metadata?.chunk_id === 'string' ? p.metadata.chunk_id : '',
            pages: (p.metadata?.pages as number[] | undefined) ?? [],
            text: p.text,
          })),
          total: passages.total,
          ...paging,
        },
      };
    },

    async summary(actor: Actor, documentId: string) {
      const document = await deps.documents.find(actor, documentId);
      const summary = await deps.repository.summary(document.id);
      if (!summary)
        throw new HttpError(404, 'summary_not_found', 'The document has no summary yet');
      return { document_id: document.id, ...summary };
    },
  };
}

export type DocumentResults = ReturnType<typeof createDocumentResults>;
