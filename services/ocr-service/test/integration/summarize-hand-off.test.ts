/**
 * The summarise hand-off against the real summarizer (in-process, on the LLM stand-in) and a real
 * OpenSearch: both summary indexes filled, the document's summary after its chunk summaries; 503
 * twice then 200 still succeeds; a summarizer that is down leaves a logged failure and no
 * temporary file.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@opensearch-project/opensearch';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { createSummarizerService, settingsSchema } from '@pelita/summarizer';
import { requireEnv } from '@pelita/testenv';
import { chunkDocuments } from '../../src/results/chunks';
import { createSummarizerClient } from '@pelita/kit';
import { summarizeDocument } from '../../src/summaries/summarize-hand-off';
import { createSummaryIndex, type SummaryIndex } from '../../src/summaries/summary-index';

jest.setTimeout(120_000);
const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
const search = new Client({ node: OPENSEARCH_URL });

/** Answers 503 to the first `failures` requests, then forwards to `target`. */
async function flakyProxy(target: string, failures: number) {
  let seen = 0;
  const server: Server = createServer((req, res) => {
    seen += 1;
    if (seen <= failures) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}');
      return;
    }
    const forwarded = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('summarise hand-off', () => {
  const suffix = randomBytes(4).toString('hex');
  const names = {
    document: `summarize_document_${suffix}`,
    chunk: `summarize_document_chunk_${suffix}`,
  };
  const lines: string[] = [];
  const logger = createLogger({
    name: 'ocr-worker',
    destination: new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  let stub: LlmStub;
  let summarizer: RunningServer;
  let summaries: SummaryIndex;
  let tempDir: string;

  beforeAll(async () => {
    stub = await startLlmStub();
    const quiet = createLogger({ name: 'summarizer', level: 'silent' });
    summarizer = await serveInProcess(
      createSummarizerService(
        loadConfig(settingsSchema, { BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' }),
        quiet,
      ),
      quiet,
    );
    summaries = createSummaryIndex(search, names);
    tempDir = await mkdtemp(join(tmpdir(), 'hand-off-'));
  });
  afterAll(async () => {
    await summarizer.stop();
    await stub.close();
    await search.close();
    for (const index of Object.values(names))
      await fetch(`${OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
    await rm(tempDir, { recursive: true, force: true });
  });

  const chunks = (taskId: string) =>
    chunkDocuments(
      {
        contentList: Array.from({ length: 7 }, (_, i) => ({
          page: i + 1,
          type: 'text',
          content: `Page ${i + 1}: the Jakarta office reported revenue growth and new contracts with Bandung suppliers.`,
        })),
        mdContentList: [],
      },
      {
        taskId,
        pdfName: 'report.pdf',
        uploadedAt: new Date(),
        outputPdfFile: undefined,
        metadataDocument: undefined,
      },
    );
  const client = (baseUrl: string) =>
    createSummarizerClient({
      baseUrl,
      connectTimeoutMs: 10_000,
      readTimeoutMs: 600_000,
      retries: 3,
      backoffMs: 50,
      chunkSize: 10_000,
      targetContext: 128_000,
      enableNer: true,
    });
  const get = async (index: string, id: string) => {
    const res = await fetch(`${OPENSEARCH_URL}/${index}/_doc/${encodeURIComponent(id)}`);
    return (await res.json()) as { found: boolean; _source?: Record<string, unknown> };
  };

  it('fills both summary indexes and removes its temporary file', async () => {
    const outcome = await summarizeDocument('task-a', 'report.pdf', chunks('task-a'), {
      summarizer: client(summarizer.url),
      summaries,
      logger,
      tempDir,
    });
    expect(outcome).toEqual({ ok: true, chunkSummaries: expect.any(Number) });
    const final = await get(names.document, 'task-a');
    expect(final._source).toMatchObject({
      task_id: 'task-a',
      pdf_name: 'report.pdf',
      summary: expect.stringMatching(/\S/),
    });
    const first = await get(names.chunk, 'task-a_0');
    const index = first.found ? 0 : 1; // the summarizer numbers its chunks
    expect((await get(names.chunk, `task-a_${index}`))._source).toMatchObject({
      task_id: 'task-a',
      chunk_index: index,
    });
    expect(await readdir(tempDir)).toEqual([]);
    // The summarizer received the chunks as a JSON text file.
    expect(stub.stats().calls.some((call) => call.prompt.includes('Jakarta office'))).toBe(true);
  });

  it('writes the document summary last: none while its chunk summaries could not be stored', async () => {
    const file = {
      total_initial_chunks: 1,
      final_summary_tokens: 3,
      final_summary: {
        summary: 'The office grew.',
        key_points_model: [],
        topics_aggregated: [],
        named_entities: {},
      },
      // An index refuses a chunk number that is not one (the field is mapped as an integer).
      summarize_chunk: [{ chunk_index: 'first', summary: 'grew', key_points: [], topics: [] }],
    } as unknown as Parameters<SummaryIndex['store']>[2];
    await summaries.ensure();
    await expect(summaries.store('task-order', 'report.pdf', file)).rejects.toThrow(
      /chunk summaries of task-order/,
    );
    expect((await get(names.document, 'task-order')).found).toBe(false);
  });

  it('retries 503 twice and then succeeds', async () => {
    const proxy = await flakyProxy(summarizer.url, 2);
    try {
      const outcome = await summarizeDocument('task-b', 'b.pdf', chunks('task-b'), {
        summarizer: client(proxy.url),
        summaries,
        logger,
        tempDir,
      });
      expect(outcome.ok).toBe(true);
      expect(proxy.requests()).toBe(3);
      expect((await get(names.document, 'task-b')).found).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('logs a failure (never throws) when the summarizer keeps failing or is down', async () => {
    const proxy = await flakyProxy(summarizer.url, 10);
    try {
      const outcome = await summarizeDocument('task-c', 'c.pdf', chunks('task-c'), {
        summarizer: client(proxy.url),
        summaries,
        logger,
        tempDir,
      });
      expect(outcome).toEqual({ ok: false, error: expect.stringContaining('answered 503') });
      expect(proxy.requests()).toBe(4); // the first try and 3 retries
    } finally {
      await proxy.close();
    }
    const down = await summarizeDocument('task-d', 'd.pdf', chunks('task-d'), {
      summarizer: client('http://127.0.0.1:1'),
      summaries,
      logger,
      tempDir,
    });
    expect(down.ok).toBe(false);
    expect(lines.join('\n')).toContain('"taskId":"task-d"');
    expect((await get(names.document, 'task-d')).found).toBe(false);
    expect(await readdir(tempDir)).toEqual([]);
  });
});
