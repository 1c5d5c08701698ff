/** /api/workspaces/:id/documents: upload or add by URL, follow, read OCR results and summary, re-process, delete. */
import { defineRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { basename } from 'node:path';
import { actorOf, type CallerOf } from '../workspaces/caller';
import { uploadRoute, type UploadSettings } from './upload-routes';
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

export interface DocumentRouteDeps extends UploadSettings {
  documents: Documents;
  results: DocumentResults;
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
  /** The OCR options of an upload or URL: DEFAULT_OCR_PROCESSING unless the caller chose. */
  const ocrOptions = (form: {
    processing?: OcrOptions['processing'];
    type_ocr: OcrOptions['typeOcr'];
  }): OcrOptions => ({
    processing: form.processing ?? deps.defaultProcessing,
    typeOcr: form.type_ocr,
  });

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
    uploadRoute(deps, {
      path,
      summary: 'Upload a document (multipart `file`); it is processed by OCR in the background',
      tags,
      form: UploadForm,
      one,
      missing: missing.description,
      unsupported: 'Not a document the OCR service reads',
      unavailable: ocrDown.description,
      mayAdd: documents.mayAdd,
      add: async (caller, form) => {
        const name = form.name ?? basename(form.file.originalName || 'document');
        return toDocumentResponse(
          await documents.upload(
            caller,
            { path: form.file.path, name, size: form.file.size },
            { name, folderId: form.folder_id ?? null, options: ocrOptions(form) },
          ),
        );
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
          options: ocrOptions(body),
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
