/** Shapes of documents, their folders, OCR results and summaries. */
import { uploadedFile } from '@pelita/kit';
import { z } from 'zod';
import type { DocumentRecord } from './document-repository';
import { Name, pageOf, Paging, Timestamp } from '../http-schemas';
import { Made, responseOf } from '../row-schemas';

const Processing = z.enum(['cloud', 'local']);
const TypeOcr = z.enum(['ekstrak_only', 'representasi']);
const State = z.enum(['queued', 'processing', 'done', 'failed']);

export const DocumentParams = z.object({ workspaceId: z.uuid(), documentId: z.uuid() });
export const DocumentQuery = Paging.extend({
  folder_id: z.uuid().optional(),
  state: State.optional(),
});

/** Multipart form of an upload: the file, and optional fields. */
export const UploadForm = z.object({
  file: uploadedFile('Send the document in the field `file`'),
  name: Name.optional(),
  folder_id: z.uuid().optional(),
  processing: Processing.optional(),
  type_ocr: TypeOcr.default('ekstrak_only'),
});
export const UrlBody = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2000),
  name: Name.optional(),
  folder_id: z.uuid().nullable().default(null),
  processing: Processing.optional(),
  type_ocr: TypeOcr.default('ekstrak_only'),
});
export const DocumentPatch = z.object({ name: Name, folder_id: z.uuid().nullable() }).partial();
export const ReprocessBody = z
  .object({ processing: Processing, type_ocr: TypeOcr })
  .partial()
  .default({});

export const DocumentResponse = z.object({
  id: z.string(),
  workspace_id: z.string(),
  folder_id: z.string().nullable(),
  name: z.string(),
  source: z.enum(['upload', 'url']),
  url: z.string().nullable(),
  size_bytes: z.number().int().nullable(),
  processing: Processing,
  type_ocr: TypeOcr,
  /** The ocr-service task of the latest processing. */
  task_id: z.string(),
  state: State,
  stage: z.string(),
  progress_pct: z.number().int(),
  error: z.string().nullable(),
  error_code: z.number().int().nullable(),
  /** The searchable PDF the OCR made (uploads). */
  pdf_url: z.string().nullable(),
  summary_state: z.enum(['pending', 'done', 'none']),
  ...Made,
  finished_at: Timestamp.nullable(),
});
export const DocumentList = pageOf(DocumentResponse);

export const toDocumentResponse = responseOf(DocumentResponse, (d: DocumentRecord) => ({
  size_bytes: d.size_bytes === null ? null : Number(d.size_bytes),
}));

export const OcrResultResponse = z.object({
  document_id: z.string(),
  result_index: z.string(),
  pages: z.number().int(),
  characters: z.number().int(),
  chunks: pageOf(
    z.object({
      position: z.number().int(),
      chunk_id: z.string(),
      pages: z.array(z.number()),
      text: z.string(),
    }),
  ),
});
export const SummaryResponse = z.object({
  document_id: z.string(),
  summary: z.string(),
  key_points: z.unknown(),
  topics: z.unknown(),
  named_entities: z.unknown(),
  summary_index: z.string(),
  chunk_summary_index: z.string(),
});

export const FolderParams = z.object({ workspaceId: z.uuid(), folderId: z.uuid() });
export const FolderQuery = Paging.extend({
  /** Only the folders directly in this one; `root` for the top level. */
  parent_id: z.union([z.uuid(), z.literal('root')]).optional(),
});
export const FolderBody = z.object({ name: Name, parent_id: z.uuid().nullable().default(null) });
export const FolderPatch = z.object({ name: Name, parent_id: z.uuid().nullable() }).partial();
export const FolderResponse = z.object({
  id: z.string(),
  workspace_id: z.string(),
  parent_id: z.string().nullable(),
  name: z.string(),
  ...Made,
});
export const FolderList = pageOf(FolderResponse);
export const toFolderResponse = responseOf(FolderResponse);
