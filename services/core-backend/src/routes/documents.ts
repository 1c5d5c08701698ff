/** /api/workspaces/:id/documents: upload or add by URL, follow, read OCR results and summary, re-process, delete. */
import {
  defineRoute,
  HttpError,
  multipartUpload,
  requestWorkspace,
  type Logger,
  type RouteDefinition,
} from '@pelita/kit';
import { basename } from 'node:path';
import type pg from 'pg';
import type { CallerOf } from '../caller';
import { memberFirst } from './member-first';
import type { Documents } from '../documents/documents';
import type { OcrOptions } from '../documents/ocr-client';
import { Deleted, Paging, WorkspaceParams } from '../schemas/common';
import {
  DocumentList,
  DocumentParams,
  DocumentPatch,
  DocumentQuery,
  DocumentResponse,
  OcrResultResponse,
  ReprocessBody,
  SummaryResponse,
  toDocumentResponse,
  UploadForm,
  UrlBody,
} from '../schemas/documents';
import type { Workspaces } from '../workspaces/workspaces';
import type { KnowledgeIndex } from '../retrieval/knowledge-index';

export interface DocumentRouteDeps {
  workspaces: Workspaces;
  documents: Documents;
  knowledge: KnowledgeIndex;
  pool: pg.Pool;
  callerOf: CallerOf;
  logger: Logger;
  tempDir: string;
  maxUploadBytes: number;
  defaultProcessing: OcrOptions['processing'];
}

export function documentRoutes(deps: DocumentRouteDeps): RouteDefinition[] {
  const { workspaces, documents } = deps;
  const tags = ['documents'];
  const one = { description: 'The document', schema: DocumentResponse };
  const missing = { description: 'No such workspace or document (or not shared with the caller)' };
  const ocrDown = { description: 'The OCR service is not configured, unreachable or busy' };
  const member = async (req: Parameters<CallerOf>[0], workspaceId: string, write = false) =>
    workspaces.access(
      workspaceId,
      (await deps.callerOf(req)).id,
      write ? 'knowledge.write' : 'knowledge.read',
    );
  const path = '/api/workspaces/:workspaceId/documents';

  return [
    defineRoute({
      method: 'get',
      path,
      summary: 'Documents the caller may use, newest first',
      tags,
      request: { params: WorkspaceParams, query: DocumentQuery },
      responses: {
        200: { description: 'A page of documents', schema: DocumentList },
        404: missing,
      },
      handler: async ({ params, query }, req) => {
        const { rows, total } = await documents.list(await member(req, params.workspaceId), {
          page: query.page,
          limit: query.limit,
          ...(query.folder_id ? { folderId: query.folder_id } : {}),
          ...(query.state ? { state: query.state } : {}),
        });
        return { data: rows.map(toDocumentResponse), total, page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'post',
      path,
      summary: 'Upload a document (multipart `file`); it is processed by OCR in the background',
      tags,
      successStatus: 201,
      before: [
        memberFirst(deps.workspaces, deps.callerOf),
        requestWorkspace(deps.tempDir, deps.logger),
        multipartUpload({ field: 'file', maxFiles: 1, maxBytes: deps.maxUploadBytes }),
      ],
      request: {
        params: WorkspaceParams,
        body: UploadForm,
        bodyContentType: 'multipart/form-data',
      },
      responses: {
        201: one,
        404: missing,
        413: { description: 'The file is larger than MAX_UPLOAD_BYTES' },
        415: { description: 'Not a document the OCR service reads' },
        503: ocrDown,
      },
      handler: async ({ params, body }, req) => {
        const name = body.name ?? basename(body.file.originalName || 'document');
        const document = await documents.upload(
          await member(req, params.workspaceId, true),
          { path: body.file.path, name, size: body.file.size },
          {
            name,
            folderId: body.folder_id ?? null,
            options: {
              processing: body.processing ?? deps.defaultProcessing,
              typeOcr: body.type_ocr,
            },
          },
        );
        return toDocumentResponse(document);
      },
    }),
    defineRoute({
      method: 'post',
      path: `${path}/from-url`,
      summary:
        'Add a document from an http(s) URL (fetched by the OCR worker under its SSRF rules)',
      tags,
      successStatus: 201,
      request: { params: WorkspaceParams, body: UrlBody },
      responses: { 201: one, 404: missing, 503: ocrDown },
      handler: async ({ params, body }, req) => {
        const name =
          body.name ??
          (decodeURIComponent(new URL(body.url).pathname.split('/').pop() ?? '') || 'document.pdf');
        const document = await documents.fromUrl(
          await member(req, params.workspaceId, true),
          body.url,
          {
            name,
            folderId: body.folder_id,
            options: {
              processing: body.processing ?? deps.defaultProcessing,
              typeOcr: body.type_ocr,
            },
          },
        );
        return toDocumentResponse(document);
      },
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:documentId`,
      summary: 'One document with its processing state',
      tags,
      request: { params: DocumentParams },
      responses: { 200: one, 404: missing },
      handler: async ({ params }, req) =>
        toDocumentResponse(
          await documents.find(await member(req, params.workspaceId), params.documentId),
        ),
    }),
    defineRoute({
      method: 'patch',
      path: `${path}/:documentId`,
      summary: 'Rename a document or move it to another folder (null: out of any)',
      tags,
      request: { params: DocumentParams, body: DocumentPatch },
      responses: { 200: one, 404: missing },
      handler: async ({ params, body }, req) =>
        toDocumentResponse(
          await documents.update(await member(req, params.workspaceId, true), params.documentId, {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.folder_id !== undefined ? { folderId: body.folder_id } : {}),
          }),
        ),
    }),
    defineRoute({
      method: 'post',
      path: `${path}/:documentId/reprocess`,
      summary:
        'Process the document again (optionally with other OCR options); old results are replaced',
      tags,
      request: { params: DocumentParams, body: ReprocessBody },
      responses: {
        200: one,
        404: missing,
        409: { description: 'Still processing, or the uploaded original was not kept' },
        503: ocrDown,
      },
      handler: async ({ params, body }, req) =>
        toDocumentResponse(
          await documents.reprocess(
            await member(req, params.workspaceId, true),
            params.documentId,
            {
              ...(body.processing ? { processing: body.processing } : {}),
              ...(body.type_ocr ? { typeOcr: body.type_ocr } : {}),
            },
          ),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: `${path}/:documentId`,
      summary: 'Delete a document with its chunks, summaries, passages and stored files',
      tags,
      request: { params: DocumentParams },
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: missing },
      handler: async ({ params }, req) => {
        await documents.remove(await member(req, params.workspaceId, true), params.documentId);
        return { deleted: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:documentId/ocr-results`,
      summary: 'What OCR made of the document: its chunks, in order',
      tags,
      request: { params: DocumentParams, query: Paging },
      responses: {
        200: { description: 'The OCR result', schema: OcrResultResponse },
        404: { description: 'No such document, or no OCR result yet' },
      },
      handler: async ({ params, query }, req) => {
        const document = await documents.find(
          await member(req, params.workspaceId),
          params.documentId,
        );
        const { rows } = await deps.pool.query<{
          result_index: string;
          pages: number;
          characters: number;
          chunk_ids: string[];
        }>('select * from document_ocr_results where document_id = $1', [document.id]);
        const result = rows[0];
        if (!result) {
          throw new HttpError(404, 'ocr_result_not_found', 'The document has no OCR result yet');
        }
        const passages = await deps.knowledge.passagesOf('document', document.id, 'chunk', query);
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
            page: query.page,
            limit: query.limit,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${path}/:documentId/summary`,
      summary: "The document's summary, key points, topics and named entities",
      tags,
      request: { params: DocumentParams },
      responses: {
        200: { description: 'The summary', schema: SummaryResponse },
        404: { description: 'No such document, or no summary (yet)' },
      },
      handler: async ({ params }, req) => {
        const document = await documents.find(
          await member(req, params.workspaceId),
          params.documentId,
        );
        const { rows } = await deps.pool.query<{
          summary: string;
          key_points: unknown;
          topics: unknown;
          named_entities: unknown;
          summary_index: string;
          chunk_summary_index: string;
        }>('select * from document_summaries where document_id = $1', [document.id]);
        const summary = rows[0];
        if (!summary)
          throw new HttpError(404, 'summary_not_found', 'The document has no summary yet');
        return { document_id: document.id, ...summary };
      },
    }),
  ];
}
