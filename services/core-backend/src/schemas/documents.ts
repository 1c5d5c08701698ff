/** Shapes of documents, folders, topics and search. */
import { storedText, uploadedFile } from '@pelita/kit';
import { z } from 'zod';
import type { Hit } from '../retrieval/knowledge-index';
import type { DocumentRecord } from '../documents/documents';
import type { FolderRecord } from '../documents/folders';
import type { TopicRecord } from '../topics/topics';
import { Description, Name, pageOf, Paging, Timestamp } from './common';

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
  created_by: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Timestamp.nullable(),
});
export const DocumentList = pageOf(DocumentResponse);

export const toDocumentResponse = (d: DocumentRecord): z.infer<typeof DocumentResponse> => ({
  id: d.id,
  workspace_id: d.workspace_id,
  folder_id: d.folder_id,
  name: d.name,
  source: d.source,
  url: d.url,
  size_bytes: d.size_bytes === null ? null : Number(d.size_bytes),
  processing: d.processing,
  type_ocr: d.type_ocr,
  task_id: d.task_id,
  state: d.state,
  stage: d.stage,
  progress_pct: d.progress_pct,
  error: d.error,
  error_code: d.error_code,
  pdf_url: d.pdf_url,
  summary_state: d.summary_state,
  created_by: d.created_by,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
  finished_at: d.finished_at?.toISOString() ?? null,
});

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
  created_by: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const FolderList = pageOf(FolderResponse);
export const toFolderResponse = (f: FolderRecord): z.infer<typeof FolderResponse> => ({
  id: f.id,
  workspace_id: f.workspace_id,
  parent_id: f.parent_id,
  name: f.name,
  created_by: f.created_by,
  created_at: f.created_at.toISOString(),
  updated_at: f.updated_at.toISOString(),
});

export const TopicParams = z.object({ workspaceId: z.uuid(), topicId: z.uuid() });
export const TopicDocumentParams = TopicParams.extend({ documentId: z.uuid() });
export const TopicBody = z.object({ name: Name, description: Description.default('') });
export const TopicPatch = z.object({ name: Name, description: Description }).partial();
export const TopicDocumentsBody = z.object({ document_ids: z.array(z.uuid()).min(1).max(500) });
export const TopicResponse = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  description: z.string(),
  document_count: z.number().int(),
  created_by: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const TopicList = pageOf(TopicResponse);
export const TopicDocumentList = pageOf(
  z.object({ id: z.string(), name: z.string(), state: z.string(), added_at: Timestamp }),
);
export const toTopicResponse = (t: TopicRecord): z.infer<typeof TopicResponse> => ({
  id: t.id,
  workspace_id: t.workspace_id,
  name: t.name,
  description: t.description,
  document_count: t.document_count,
  created_by: t.created_by,
  created_at: t.created_at.toISOString(),
  updated_at: t.updated_at.toISOString(),
});

export const SearchBody = z.object({
  query: storedText().trim().min(1).max(2000),
  topic_ids: z.array(z.uuid()).max(50).optional(),
  k: z.number().int().min(1).max(50).optional(),
});
const Passage = z.object({
  type: z.string(),
  id: z.string(),
  title: z.string(),
  kind: z.string(),
  position: z.number().int(),
  text: z.string(),
  score: z.number(),
  matched_by: z.array(z.string()),
});
export const SearchResponse = z.object({ hits: z.array(Passage) });

/**
 * A passage as an anonymous widget visitor sees it under an answer: where it is from, not its
 * text (unless the widget's owner allows the text).
 */
export const toPassageTitle = (hit: Hit) => ({
  type: hit.resourceType,
  id: hit.resourceId,
  title: hit.title,
  kind: hit.kind,
  position: hit.position,
});

/** A passage retrieval found, as searches answer it and chats list it under an answer. */
export const toPassageResponse = (hit: Hit): z.infer<typeof Passage> => ({
  type: hit.resourceType,
  id: hit.resourceId,
  title: hit.title,
  kind: hit.kind,
  position: hit.position,
  text: hit.text,
  score: hit.score,
  matched_by: hit.matchedBy,
});
