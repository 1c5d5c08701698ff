/** /api/workspaces/:id/documents: upload or add by URL, follow, read OCR results and summary, re-process, delete. */
import {
  defineRoute,
  multipartUpload,
  resourceRoutes,
  requestWorkspace,
  type Logger,
  type RouteDefinition,
} from '@pelita/kit';
import { basename } from 'node:path';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { memberFirst } from './member-first';
import type { DocumentResults } from './document-results';
import type { Documents } from './documents';
import type { OcrOptions } from './ocr-client';
import { Paging, WorkspaceParams } from '../http-schemas';
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
} from './schemas';

export interface DocumentRouteDeps {
  documents: Documents;
  results: DocumentResults;
  callerOf: CallerOf;
  logger: Logger;
  tempDir: string;
  maxUploadBytes: number;
  defaultProcessing: OcrOptions['processing'];
}

export function documentRoutes(deps: DocumentRouteDeps): RouteDefinition[] {
  const { documents } = deps;
  const tags = ['documents'];
  const one = { description: 'The document', schema: DocumentResponse };
  const missing = { description: 'No such workspace or document (or not shared with the caller)' };
  const ocrDown = { description: 'The OCR service is not configured, unreachable or busy' };
  const actor = (req: Parameters<CallerOf>[0], workspaceId: string) =>
    actorOf(deps.callerOf, req, workspaceId);
  const path = '/api/workspaces/:workspaceId/documents';

  return [
    ...resourceRoutes(
      {
        tags,
        path,
        item: '/:documentId',
        params: { collection: WorkspaceParams, item: DocumentParams },
        caller: (req, params) => actor(req, params.workspaceId),
        one: { ...one, from: toDocumentResponse },
        missing: missing.description,
      },
      {
        list: {
          summary: 'Documents the caller may use, newest first',
          page: { description: 'A page of documents', schema: DocumentList },
          query: DocumentQuery,
          run: (caller, { folder_id, state, ...paging }) =>
            documents.list(caller, {
              ...paging,
              ...(folder_id ? { folderId: folder_id } : {}),
              ...(state ? { state } : {}),
            }),
        },
        show: {
          summary: 'One document with its processing state',
          run: (caller, { documentId }) => documents.find(caller, documentId),
        },
        change: {
          summary: 'Rename a document or move it to another folder (null: out of any)',
          body: DocumentPatch,
          run: (caller, { documentId }, body) =>
            documents.update(caller, documentId, {
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.folder_id !== undefined ? { folderId: body.folder_id } : {}),
            }),
        },
        remove: {
          summary: 'Delete a document with its chunks, summaries, passages and stored files',
          run: (caller, { documentId }) => documents.remove(caller, documentId),
        },
      },
    ),
    defineRoute({
      method: 'post',
      path,
      summary: 'Upload a document (multipart `file`); it is processed by OCR in the background',
      tags,
      successStatus: 201,
      before: [
        memberFirst(documents.mayAdd, deps.callerOf),
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
          await actor(req, params.workspaceId),
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
        const document = await documents.fromUrl(await actor(req, params.workspaceId), body.url, {
          name,
          folderId: body.folder_id,
          options: {
            processing: body.processing ?? deps.defaultProcessing,
            typeOcr: body.type_ocr,
          },
        });
        return toDocumentResponse(document);
      },
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
          await documents.reprocess(await actor(req, params.workspaceId), params.documentId, {
            ...(body.processing ? { processing: body.processing } : {}),
            ...(body.type_ocr ? { typeOcr: body.type_ocr } : {}),
          }),
        ),
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
      handler: async ({ params, query }, req) =>
        deps.results.ocrResult(await actor(req, params.workspaceId), params.documentId, query),
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
      handler: async ({ params }, req) =>
        deps.results.summary(await actor(req, params.workspaceId), params.documentId),
    }),
  ];
}
