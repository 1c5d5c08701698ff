// One trace across a document's way through the platform: uploaded to the core backend, handed
// to the ocr-service's task API, taken from the Redis queue by the OCR worker, converted by the
// office converter (an image), OCRed by the local engine (its own task queue), summarised by the
// summarizer, and its results written into the core backend's knowledge index by its follower.
// Each runs as its own process from its dist/ entry, all exporting to one OTLP receiver; the log
// lines of each about that document carry the same trace id. Only the LLM is a stand-in (in this
// process, untraced).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { freePort, requireEnv, waitFor } from '@pelita/testenv';
import { pngOf, textPdf } from '../../../services/ocr-service/test/integration/support/documents';
import type { ReceivedSpan } from '../observability/otlp-receiver';
import {
  CLIENT,
  CONSUMER,
  INTERNAL,
  SERVER,
  childOf,
  descendants,
  startAuthPlatform,
  startTracedProcesses,
  type AuthPlatform,
  type TracedProcesses,
} from '../observability/traced-processes';

const env = requireEnv(
  'REDIS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);
const run = randomBytes(4).toString('hex');
const INDEXES = {
  INDEX_PDF_PARSING_RESULTS: `trace-pdf-parsing-results-${run}`,
  INDEX_DOCUMENT_SUMMARIZE: `trace_summarize_document_${run}`,
  INDEX_DOCUMENT_SUMMARIZE_CHUNK: `trace_summarize_document_chunk_${run}`,
};
const KNOWLEDGE_INDEX = `trace-knowledge-${run}`;
const S3 = {
  S3_ENDPOINT: env.S3_ENDPOINT,
  S3_ACCESS_KEY: env.S3_ACCESS_KEY,
  S3_SECRET_KEY: env.S3_SECRET_KEY,
  S3_REGION: env.S3_REGION,
  S3_BUCKET: `trace-${run}`,
};

/** The Node services a document passes through (OPA is traced too). */
const SERVICES = [
  'core-backend',
  'ocr-service',
  'ocr-worker',
  'office-converter',
  'ocr-engine',
  'summarizer',
];

let processes: TracedProcesses;
let platform: AuthPlatform | undefined;
let llm: LlmStub | undefined;
let coreUrl: string;

beforeAll(async () => {
  processes = await startTracedProcesses();
  llm = await startLlmStub();
  const corePort = await freePort();
  const serviceToken = randomBytes(24).toString('hex');
  platform = await startAuthPlatform(processes, {
    CORE_BACKEND_URL: `http://127.0.0.1:${corePort}`,
    CORE_BACKEND_TOKEN: serviceToken,
  });
  const [converter, engine, summarizer] = await Promise.all([
    processes.startService('office-converter', 'office-converter/dist/main.js', {}),
    processes.startService('ocr-engine', 'ocr-engine/dist/main.js', {
      TASK_DIR: path.join(processes.dir, 'engine'),
    }),
    processes.startService('summarizer', 'summarizer/dist/main.js', {
      BASE_URL_LOCAL: llm.url,
      MODEL_LOCAL: 'pelita-stub',
    }),
  ]);
  const ocrEnv = {
    REDIS_URL: env.REDIS_URL,
    REDIS_KEY_PREFIX: `trace:ocr:${run}`,
    OPENSEARCH_URL: env.OPENSEARCH_URL,
    ...INDEXES,
    ...S3,
    OCR_ENGINE_LOCAL_URL: engine.url,
    OCR_POLL_INTERVAL_MS: '100',
    URL_CONVERTER: converter.url,
    URL_SUMMARIZER: summarizer.url,
    ALLOWED_TARGETS: '127.0.0.1',
    TEMP_DIR: processes.dir,
    WORK_DIR: processes.dir,
  };
  const ocr = await processes.startService('ocr-service', 'ocr-service/dist/main.js', ocrEnv);
  await processes.startService('ocr-worker', 'ocr-service/dist/worker.js', {
    ...ocrEnv,
    WORKER_NAME: `trace-${run}`,
  });
  const core = await processes.startService('core-backend', 'core-backend/dist/main.js', {
    PORT: String(corePort),
    DATABASE_URL: platform.databaseUrl,
    REDIS_URL: env.REDIS_URL,
    REDIS_KEY_PREFIX: platform.redisKeyPrefix,
    JWT_PUBLIC_KEY: platform.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    URL_USER: platform.user.url,
    URL_OPA: platform.opa.url,
    SERVICE_TOKEN: serviceToken,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OPENSEARCH_URL: env.OPENSEARCH_URL,
    KNOWLEDGE_INDEX,
    URL_OCR: ocr.url,
    OCR_POLL_INTERVAL_MS: '100',
    ...INDEXES,
    ...S3,
    TEMP_DIR: processes.dir,
    BASE_URL_LOCAL: llm.url,
    MODEL_LOCAL: 'pelita-stub',
    EMBEDDINGS_MODEL: 'pelita-stub',
  });
  coreUrl = core.url;
}, 180_000);

afterAll(async () => {
  await processes?.stop();
  await llm?.close();
  await platform?.drop();
  for (const index of [...Object.values(INDEXES), KNOWLEDGE_INDEX]) {
    await fetch(`${env.OPENSEARCH_URL}/${index}`, { method: 'DELETE' }).catch(() => undefined);
  }
});

/** The first span (by parent links) of `service` and `kind` below `roots`, or a clear error. */
function hop(
  trace: ReceivedSpan[],
  roots: ReceivedSpan[],
  service: string,
  kind: number,
): ReceivedSpan[] {
  const below = descendants(trace, roots);
  const found = childOf(trace, below, service, kind);
  if (found.length === 0) {
    const seen = trace.map((s) => `${s.serviceName}/${s.kind} ${s.name}`).join('; ');
    throw new Error(`no ${service} span of kind ${kind} below ${roots[0]?.name}; seen: ${seen}`);
  }
  return found;
}

it('follows an uploaded document from the core backend to the summarizer in one trace', async () => {
  const token = await platform!.login();
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${coreUrl}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const workspace = (await call('POST', '/api/workspaces', { name: 'Traced' })) as { id: string };

  // An image: the worker has the office converter make a PDF of it, and the engine OCRs that.
  const png = await pngOf(
    await textPdf(1, () => 'Traced flamingo census counts pelicans in the harbour.'),
  );
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)]), 'census.png');
  const uploaded = await fetch(`${coreUrl}/api/workspaces/${workspace.id}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const document = (await uploaded.json()) as { id: string; task_id: string };

  const done = await waitFor(
    async () => {
      const doc = (await call(
        'GET',
        `/api/workspaces/${workspace.id}/documents/${document.id}`,
      )) as {
        state: string;
        summary_state: string;
      };
      if (doc.state === 'failed') throw new Error(`the document failed: ${JSON.stringify(doc)}`);
      return doc.state === 'done' && doc.summary_state !== 'pending' ? doc : undefined;
    },
    { what: `document ${document.id} done`, timeoutMs: 120_000, intervalMs: 250 },
  );
  expect(done.summary_state).toBe('done');

  // The upload's server span in the core backend is where the trace starts; every hop below it
  // is a child of the hop before, by parent links. Spans are exported in batches: asked again
  // until every hop has arrived (the error names the first missing one and what the trace holds).
  const spans = processes.receiver.spans;
  const chain = await waitFor(
    () => {
      const upload = spans.find(
        (s) =>
          s.serviceName === 'core-backend' &&
          s.kind === SERVER &&
          !s.parentSpanId &&
          s.name === 'POST /api/workspaces/:workspaceId/documents',
      );
      if (!upload) return undefined;
      const trace = spans.filter((s) => s.traceId === upload.traceId);
      const api = hop(trace, [upload], 'ocr-service', SERVER);
      const task = hop(trace, api, 'ocr-worker', CONSUMER);
      const engineCall = hop(trace, task, 'ocr-engine', SERVER);
      // The core backend's follower writes the results into the knowledge index in this trace
      // too (its status polls are traces of their own, linked to it): chunks, then summary.
      const collected = hop(trace, [upload], 'core-backend', CONSUMER);
      if (collected.length < 2)
        throw new Error(`collected: ${collected.map((s) => s.name).join(', ')}`);
      return {
        upload,
        trace,
        api,
        task,
        engineCall,
        converter: hop(trace, task, 'office-converter', SERVER),
        engineTask: hop(trace, engineCall, 'ocr-engine', CONSUMER),
        summarizer: hop(trace, task, 'summarizer', SERVER),
        // OPA exports its spans in batches of its own (every 5 s): waited for like the others.
        opa: hop(trace, [upload], 'opa', SERVER),
        collected,
      };
    },
    {
      what: 'a trace core-backend → ocr-service → ocr-worker → converter / engine → summarizer',
      timeoutMs: 30_000,
      intervalMs: 250,
    },
  );
  const traceId = chain.upload.traceId;
  // Each HTTP hop's server span is the child of its caller's client span.
  const parentOf = (span: ReceivedSpan) => chain.trace.find((s) => s.spanId === span.parentSpanId);
  for (const [servers, caller] of [
    [chain.api, 'core-backend'],
    [chain.converter, 'ocr-worker'],
    [chain.engineCall, 'ocr-worker'],
    [chain.summarizer, 'ocr-worker'],
  ] as const) {
    expect(servers.map(parentOf)).toContainEqual(
      expect.objectContaining({ serviceName: caller, kind: CLIENT }),
    );
  }
  expect(chain.task[0]!.name).toBe('ocr task');
  expect(chain.engineTask[0]!.name).toBe('ocr-engine task');
  // The conversion itself has a span of its own below the converter's request (an image: pdf-lib).
  expect(
    hop(chain.trace, chain.converter, 'office-converter', INTERNAL).map((s) => s.name),
  ).toContain('convert pdf-lib');
  // The summarizer's calls of the model (the stand-in is not traced: client spans are the leaves)
  // stay in the trace through its concurrency limit.
  expect(hop(chain.trace, chain.summarizer, 'summarizer', CLIENT).length).toBeGreaterThan(0);
  expect(chain.collected.map((s) => s.name).sort()).toEqual([
    'collect document chunks',
    'collect document summary',
  ]);
  // The core backend's authorisation of the upload is in the trace too: OPA's decision.
  expect(chain.opa).not.toHaveLength(0);
  expect(new Set(chain.trace.map((s) => s.serviceName))).toEqual(new Set(['opa', ...SERVICES]));

  // The log lines each service wrote about this work carry the trace id.
  const lines = (name: string) =>
    processes.byName(name).logs.filter((line) => line.trace_id === traceId);
  await waitFor(
    () => {
      const silent = SERVICES.filter((name) => lines(name).length === 0);
      if (silent.length > 0) throw new Error(`none from ${silent.join(', ')}`);
      return true;
    },
    { what: `log lines with trace_id ${traceId} from every service`, timeoutMs: 10_000 },
  );
  // Not only access lines: each service's own lines about the work, the background ones too.
  const messages = (name: string) => lines(name).map((line) => line.msg);
  expect(messages('ocr-service')).toContain('task queued');
  expect(messages('ocr-worker')).toContain('task done');
  expect(messages('ocr-engine')).toContain('task completed');
  expect(messages('summarizer')).toContain('summarising: stage 1');
});
