/** /api/workspaces/:id/documents: upload or add by URL, follow, read OCR results and summary, re-process, delete. */
import { collectionRoute, itemRoute, resourceRoutes, type RouteDefinition } from '@pelita/kit';
import { basename } from 'node:path';
import { sentFields, workspaceResource } from '../workspaces/collection-routes';
import { uploadRoute, type UploadSettings } from './upload-routes';
import type { DocumentResults } from './document-results';
import type { Documents } from './documents';
import type { OcrOptions } from './ocr-client';
import { Paging } from '../http-schemas';
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
  const missing = 'No such workspace or document (or not shared with the caller)';
  const ocrDown = 'The OCR service is not configured, unreachable or busy';
  const path = '/api/workspaces/:workspaceId/documents';
  /** The OCR options of an upload or URL: DEFAULT_OCR_PROCESSING unless the caller chose. */
  const ocrOptions = (form: {
    processing?: OcrOptions['processing'];
    type_ocr: OcrOptions['typeOcr'];
  }): OcrOptions => ({
    processing: form.processing ?? deps.defaultProcessing,
    typeOcr: form.type_ocr,
  });

  const resource = workspaceResource(deps.callerOf, {
    segment: 'documents',
    params: DocumentParams,
    one: { ...one, from: toDocumentResponse },
    missing,
  });

  return [
    ...resourceRoutes(
      resource,
      {
        list: {
          summary: 'Documents the caller may use, newest first',
          page: { description: 'A page of documents', schema: DocumentList },
          query: DocumentQuery,
          run: (caller, { page, limit, ...filters }) =>
            documents.list(caller, {
              page,
              limit,
              ...sentFields(filters, { folder_id: 'folderId', state: 'state' }),
            }),
        },
        show: { summary: 'One document with its processing state' },
        change: {
          summary: 'Rename a document or move it to another folder (null: out of any)',
          body: DocumentPatch,
          run: (caller, { documentId }, body) =>
            documents.update(
              caller,
              documentId,
              sentFields(body, { name: 'name', folder_id: 'folderId' }),
            ),
        },
        remove: {
          summary: 'Delete a document with its chunks, summaries, passages and stored files',
        },
      },
      documents,
    ),
    uploadRoute(deps, {
      path,
      summary: 'Upload a document (multipart `file`); it is processed by OCR in the background',
      tags,
      form: UploadForm,
      one,
      missing,
      unsupported: 'Not a document the OCR service reads',
      unavailable: ocrDown,
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
    collectionRoute(resource, {
      method: 'post',
      path: '/from-url',
      status: 201,
      summary:
        'Add a document from an http(s) URL (fetched by the OCR worker under its SSRF rules)',
      body: UrlBody,
      answer: one,
      answers: { 503: ocrDown },
      run: async (caller, _params, { body }) => {
        const name =
          body.name ??
          (decodeURIComponent(new URL(body.url).pathname.split('/').pop() ?? '') || 'document.pdf');
        const document = await documents.fromUrl(caller, body.url, {
          name,
          folderId: body.folder_id,
          options: ocrOptions(body),
        });
        return toDocumentResponse(document);
      },
    }),
    itemRoute(resource, {
      method: 'post',
      path: '/reprocess',
      summary:
        'Process the document again (optionally with other OCR options); old results are replaced',
      body: ReprocessBody,
      answer: one,
      answers: { 409: 'Still processing, or the uploaded original was not kept', 503: ocrDown },
      run: async (caller, { documentId }, { body }) =>
        toDocumentResponse(
          await documents.reprocess(
            caller,
            documentId,
            sentFields(body, { processing: 'processing', type_ocr: 'typeOcr' }),
          ),
        ),
    }),
    itemRoute(resource, {
      method: 'get',
      path: '/ocr-results',
      summary: 'What OCR made of the document: its chunks, in order',
      query: Paging,
      answer: { description: 'The OCR result', schema: OcrResultResponse },
      answers: { 404: 'No such document, or no OCR result yet' },
      run: (caller, { documentId }, { query }) => deps.results.ocrResult(caller, documentId, query),
    }),
    itemRoute(resource, {
      method: 'get',
      path: '/summary',
      summary: "The document's summary, key points, topics and named entities",
      answer: { description: 'The summary', schema: SummaryResponse },
      answers: { 404: 'No such document, or no summary (yet)' },
      run: (caller, { documentId }) => deps.results.summary(caller, documentId),
    }),
  ];
}
