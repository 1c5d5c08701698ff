/**
 * `POST /api/v1/documents`, `GET /api/v1/pdfs/{id}`, `GET /api/v1/health` and the kit's
 * operational endpoints, against a real OpenSearch (and Redis for the task records).
 */
import { Client } from '@opensearch-project/opensearch';
import type { ChunkPage } from '../../../src/results/chunk-index';
import { chunkDocuments } from '../../../src/results/chunks';
import { createChunkIndex } from '../../../src/results/chunk-index';
import {
  env,
  isolatedNames,
  sharedState,
  startApi,
  type ApiUnderTest,
  bodyOf,
} from './support/api-under-test';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('documents, chunks and health', () => {
  const names = isolatedNames();
  const state = sharedState(names);
  let api: ApiUnderTest;
  beforeAll(async () => {
    api = await startApi(names, { OCR_ENGINE_LOCAL_URL: '' });
  });
  afterAll(async () => {
    await api?.stop();
    await state.cleanUp();
  });

  const ingest = (body: unknown) =>
    fetch(`${api.url}/api/v1/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const chunksOf = (id: string, query = '') => fetch(`${api.url}/api/v1/pdfs/${id}${query}`);

  describe('POST /api/v1/documents', () => {
    it('indexes text split at form feeds, one content item per page, in 5-page chunks', async () => {
      const pages = Array.from({ length: 7 }, (_, i) => `Text of page ${i + 1}.`);
      pages[3] = '  \n'; // a blank page is left out, the numbering kept
      const res = await ingest({
        pdf_name: 'minutes.pdf',
        text: `${pages.join('\f')}\f`,
        metadata_document: { source: 'upload' },
      });
      expect(res.status).toBe(201);
      const body: any = await bodyOf(res);
      expect(body).toEqual({
        pdf_id: expect.stringMatching(UUID),
        pdf_name: 'minutes.pdf',
        chunks: 2,
        index: names.INDEX_PDF_PARSING_RESULTS,
      });

      const read = await chunksOf(body.pdf_id);
      expect(read.status).toBe(200);
      const page = (await bodyOf(read)) as ChunkPage;
      expect(page).toMatchObject({ page: 1, size: 10, total_documents: 2, total_pages: 1 });
      const [first, second] = page.documents as [
        ChunkPage['documents'][0],
        ChunkPage['documents'][0],
      ];
      expect(first).toEqual({
        id: `${body.pdf_id}_chunk_1`,
        chunk_number: 1,
        pdf_name: 'minutes.pdf',
        pdf_id: body.pdf_id,
        parse_method: 'auto',
        uploaded_at: expect.any(String),
        content_list: [1, 2, 3, 5].map((n) => ({
          page: n,
          type: 'text',
          content: `Text of page ${n}.`,
        })),
        md_content_list: [],
        output_path: expect.stringMatching(/^\d{4}\/\d{2}$/),
        metadata_document: { source: 'upload' },
      });
      expect(first).not.toHaveProperty('output_pdf_file');
      expect(second.content_list.map((item) => item.page)).toEqual([6, 7]);
    });

    it('stores content_list and md_content_list as given, and replaces them on re-ingest', async () => {
      const content_list = Array.from({ length: 12 }, (_, i) => ({
        page: i + 1,
        type: i === 0 ? 'title' : 'text',
        content: `Block ${i + 1}`,
      }));
      const md_content_list = [{ page: 1, markdown: '# Block 1' }];
      const first = await ingest({ id: 'doc-1', pdf_name: 'a.pdf', content_list, md_content_list });
      expect(first.status).toBe(201);
      expect((await bodyOf(first)).chunks).toBe(3);
      const all = (await (await chunksOf('doc-1')).json()) as ChunkPage;
      expect(all.documents[0]?.content_list[0]).toEqual({
        page: 1,
        type: 'title',
        content: 'Block 1',
      });
      expect(all.documents[0]?.md_content_list).toEqual(md_content_list);

      const again = await ingest({ id: 'doc-1', pdf_name: 'a v2.pdf', md_content_list });
      expect(await bodyOf(again)).toMatchObject({ pdf_id: 'doc-1', chunks: 1 });
      const after = (await (await chunksOf('doc-1')).json()) as ChunkPage;
      expect(after.total_documents).toBe(1);
      expect(after.documents[0]).toMatchObject({ pdf_name: 'a v2.pdf', content_list: [] });
    });

    it.each([
      ['no content', { pdf_name: 'a.pdf' }, 'invalid_request'],
      [
        'text and content_list',
        { pdf_name: 'a.pdf', text: 'x', content_list: [] },
        'invalid_request',
      ],
      ['blank text only', { pdf_name: 'a.pdf', text: ' \f \f' }, 'empty_document'],
      ['no pdf_name', { text: 'x' }, 'invalid_request'],
      ['a bad id', { id: 'a b', pdf_name: 'a.pdf', text: 'x' }, 'invalid_request'],
      [
        'page 0',
        { pdf_name: 'a.pdf', md_content_list: [{ page: 0, markdown: 'x' }] },
        'invalid_request',
      ],
      [
        'page 10001',
        { pdf_name: 'a.pdf', md_content_list: [{ page: 10_001, markdown: 'x' }] },
        'invalid_request',
      ],
      [
        'metadata that is not an object',
        { pdf_name: 'a.pdf', text: 'x', metadata_document: 'x' },
        'invalid_request',
      ],
      ['text of 10001 pages', { pdf_name: 'a.pdf', text: 'x\f'.repeat(10_001) }, 'too_many_pages'],
    ])('refuses %s with 400', async (_what, body, code) => {
      const res = await ingest(body);
      expect(res.status).toBe(400);
      expect((await bodyOf(res)).error.code).toBe(code);
    });
  });

  describe('GET /api/v1/pdfs/{id}', () => {
    it('pages through the chunks of an OCR task in chunk order', async () => {
      // As the worker stores them.
      const search = new Client({ node: env.OPENSEARCH_URL });
      try {
        const output = {
          contentList: Array.from({ length: 23 }, (_, i) => ({
            page: i + 1,
            type: 'text',
            content: `p${i + 1}`,
          })),
          mdContentList: [],
        };
        await createChunkIndex(search, names.INDEX_PDF_PARSING_RESULTS).store(
          'ocr-task',
          chunkDocuments(output, {
            taskId: 'ocr-task',
            pdfName: 'scan.pdf',
            uploadedAt: new Date(),
            outputPdfFile: 'http://s3.example/b/ocr-documents/ocr-task.pdf',
            metadataDocument: undefined,
          }),
        );
      } finally {
        await search.close();
      }
      const page2 = (await (await chunksOf('ocr-task', '?page=2&size=2')).json()) as ChunkPage;
      expect(page2).toMatchObject({ page: 2, size: 2, total_documents: 5, total_pages: 3 });
      expect(page2.documents.map((d) => d.chunk_number)).toEqual([3, 4]);
      // The stored link is replaced by a freshly presigned one (a stored one may have expired).
      expect(page2.documents[0]?.output_pdf_file).toMatch(
        /\/ocr-documents\/ocr-task\.pdf\?X-Amz-Algorithm=AWS4-HMAC-SHA256&/,
      );
      const beyond: unknown = await (await chunksOf('ocr-task', '?page=4&size=2')).json();
      expect(beyond).toMatchObject({ page: 4, total_documents: 5, documents: [] });
    });

    it('answers a task not indexed yet with no documents, and an unknown id with 404', async () => {
      const queued = await fetch(
        `${api.url}/api/v1/pdfs?url_file=https://x.example/a.pdf&task_id=not-yet`,
        { method: 'POST' },
      );
      expect(queued.status).toBe(200);
      const pending = await chunksOf('not-yet');
      expect(pending.status).toBe(200);
      expect(await bodyOf(pending)).toEqual({
        page: 1,
        size: 10,
        total_documents: 0,
        total_pages: 0,
        documents: [],
      });
      const unknown = await chunksOf('never-seen');
      expect(unknown.status).toBe(404);
      expect((await bodyOf(unknown)).error.code).toBe('document_not_found');
    });

    it.each([
      ['page 0', '?page=0'],
      ['size 0', '?size=0'],
      ['size 101', '?size=101'],
      ['a page beyond the result window', '?page=101&size=100'],
      ['a page that is not a number', '?page=two'],
    ])('refuses %s with 400', async (_what, query) => {
      const res = await chunksOf('doc-1', query);
      expect(res.status).toBe(400);
      expect((await bodyOf(res)).error.code).toBe('invalid_request');
    });
  });

  describe('health', () => {
    const health = () => fetch(`${api.url}/api/v1/health`);

    it('reports the cluster and which engines are configured; 503 while the cluster is red', async () => {
      const ok = await health();
      expect(ok.status).toBe(200);
      expect(await bodyOf(ok)).toEqual({
        status: 'ok',
        search: { status: expect.stringMatching(/^(green|yellow)$/) },
        engines: { cloud: true, local: false },
      });

      // A real red cluster: an index whose primary can be allocated to no node. Kept as short as
      // possible (other test files share this OpenSearch) and always removed.
      const red = `${names.INDEX_PDF_PARSING_RESULTS}-unallocatable`;
      const search = new Client({ node: env.OPENSEARCH_URL });
      try {
        await search.indices.create({
          index: red,
          wait_for_active_shards: '0',
          body: {
            settings: {
              number_of_shards: 1,
              number_of_replicas: 0,
              'index.routing.allocation.require._name': 'no-such-node',
            },
          },
        });
        const unhealthy = await health();
        expect(unhealthy.status).toBe(503);
        expect(await bodyOf(unhealthy)).toEqual({
          status: 'unhealthy',
          search: { status: 'red' },
          engines: { cloud: true, local: false },
          error: { code: 'search_unhealthy', message: 'The search cluster is red' },
        });
      } finally {
        await search.indices.delete({ index: red }).catch(() => undefined);
        await search.close();
      }
      expect((await health()).status).toBe(200);
    });

    it('answers the kit endpoints: /health, /ready (Redis, OpenSearch), /metrics, /api-docs', async () => {
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
      const ready = await fetch(`${api.url}/ready`);
      expect(ready.status).toBe(200);
      expect((await bodyOf(ready)).checks).toEqual({
        redis: { status: 'up' },
        opensearch: { status: 'up' },
      });
      const metrics = await (await fetch(`${api.url}/metrics`)).text();
      expect(metrics).toMatch(/^ocr_queue_depth \d+$/m);
      expect(metrics).toMatch(/^ocr_queue_oldest_age_seconds /m);
      const docs = (await (await fetch(`${api.url}/api-docs.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(docs.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/pdfs',
          '/api/v1/tasks/{task_id}/status',
          '/api/v1/pdfs/merge',
          '/api/v1/pdfs/{id}',
          '/api/v1/pdfs/bulk',
          '/api/v1/pdfs/bulk/upload',
          '/api/v1/documents',
          '/api/v1/health',
        ]),
      );
    });
  });
});
