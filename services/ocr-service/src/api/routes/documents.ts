/** The result index over HTTP: documents ingested without OCR, and stored chunks read back. */
import { defineRoute, ErrorBodySchema, HttpError, type RouteDefinition } from '@pelita/kit';
import type { ChunkIndex } from '../../results/chunk-index';
import type { StatusStore } from '../../status/status-store';
import { ingestedChunks } from '../document-ingest';
import {
  ChunkPageQuery,
  ChunkPageSchema,
  DocumentBody,
  DocumentIngested,
  DocumentParams,
} from '../document-schemas';
import { using } from '../unavailable';

export interface DocumentRoutesDeps {
  chunks: ChunkIndex;
  statuses: StatusStore;
  /** Name of the result index (INDEX_PDF_PARSING_RESULTS), reported to the caller. */
  index: string;
  /**
   * A live link to the stored PDF of `pdfId`: a presigned link expires, so the one written at
   * indexing is signed afresh whenever chunks are read.
   */
  pdfLink: (pdfId: string) => string;
}

const TAGS = ['documents'];
const searchDown = {
  description: 'OpenSearch (`search_unavailable`) or Redis (`queue_unavailable`) failed',
  schema: ErrorBodySchema,
};

export function documentRoutes(deps: DocumentRoutesDeps): RouteDefinition[] {
  const { chunks, statuses, index, pdfLink } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/documents',
      summary: 'Put a document whose text you have straight into the result index',
      description:
        'Stored as OCR results are (5-page chunks, id `{pdf_id}_chunk_{n}`, `parse_method: auto`, ' +
        'no `output_pdf_file`), readable at `GET /api/v1/pdfs/{id}`. No OCR runs, no PDF is ' +
        'stored and no summary is made. Give `text` (pages split at form feeds) or ' +
        '`content_list`, and/or `md_content_list`.',
      tags: TAGS,
      successStatus: 201,
      request: { body: DocumentBody },
      responses: {
        201: { description: 'Indexed', schema: DocumentIngested },
        400: {
          description:
            'Invalid body (`invalid_request`), no content (`empty_document`), more than 10000 ' +
            'pages (`too_many_pages`)',
          schema: ErrorBodySchema,
        },
        503: searchDown,
      },
      handler: async ({ body }) => {
        const documents = ingestedChunks(body);
        const pdfId = documents[0]?.pdf_id ?? '';
        await using('search', () => chunks.store(pdfId, documents));
        return { pdf_id: pdfId, pdf_name: body.pdf_name, chunks: documents.length, index };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/pdfs/:id',
      summary: "A document's stored OCR chunks, paged, by `pdf_id` (the task id)",
      description:
        'Chunks in chunk order. A task still queued or running has none yet: 200 with no ' +
        'documents. 404 when there is neither a chunk nor a task of that id.',
      tags: TAGS,
      request: { params: DocumentParams, query: ChunkPageQuery },
      responses: {
        200: { description: 'One page of chunks', schema: ChunkPageSchema },
        404: {
          description: 'No chunk and no task of that id (`document_not_found`)',
          schema: ErrorBodySchema,
        },
        503: searchDown,
      },
      handler: async ({ params, query }) => {
        const found = await using('search', () => chunks.read(params.id, query.page, query.size));
        if (found.total_documents === 0) {
          const task = await using('redis', () => statuses.get(params.id));
          if (!task) throw new HttpError(404, 'document_not_found', `No document ${params.id}`);
        }
        return {
          ...found,
          documents: found.documents.map((chunk) =>
            chunk.output_pdf_file ? { ...chunk, output_pdf_file: pdfLink(chunk.pdf_id) } : chunk,
          ),
        };
      },
    }),
  ];
}
