/**
 * `POST /api/v1/documents`: a document whose text the caller already has goes straight into the
 * result index, in the same 5-page chunks an OCR task produces. No OCR, no stored PDF, no
 * summary.
 */
import { randomUUID } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type { ContentItem } from '../engines/engine';
import { chunkDocuments, type ChunkDocument } from '../results/chunks';
import { MAX_PAGES, type DocumentBody } from './document-schemas';

/** Text with form feeds between pages (as pdftotext writes it): one item per non-blank page. */
export function contentOfText(text: string): ContentItem[] {
  const pages = text.split('\f');
  if (pages.length > MAX_PAGES) {
    throw new HttpError(400, 'too_many_pages', `A document has at most ${MAX_PAGES} pages`);
  }
  return pages.flatMap((content, i) =>
    content.trim() === '' ? [] : [{ page: i + 1, type: 'text', content: content.trim() }],
  );
}

/** The chunk documents of an ingested document, under `id` or a new UUID. */
export function ingestedChunks(body: DocumentBody, uploadedAt = new Date()): ChunkDocument[] {
  const contentList =
    body.text !== undefined ? contentOfText(body.text) : (body.content_list ?? []);
  const mdContentList = body.md_content_list ?? [];
  if (contentList.length === 0 && mdContentList.length === 0) {
    throw new HttpError(400, 'empty_document', 'The document has no content to index');
  }
  return chunkDocuments(
    { contentList, mdContentList },
    {
      taskId: body.id ?? randomUUID(),
      pdfName: body.pdf_name,
      uploadedAt,
      outputPdfFile: undefined,
      metadataDocument: body.metadata_document,
    },
  );
}
