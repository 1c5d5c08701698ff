/**
 * A kit service as a real process (compiled kit, `make build` first): spans exported to an
 * OTLP receiver started here, trace context on outbound calls, and SIGTERM draining a request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@pelita/testenv';

const FIXTURE = join(__dirname, '..', 'fixtures', 'traced-service.js');
const KIT_DIST = join(__dirname, '..', '..', 'dist', 'index.js');

interface OtlpSpan {
  traceId: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
}
interface ExportedSpan extends OtlpSpan {
  serviceName: string | undefined;
}

/** A minimal OTLP/HTTP (JSON) trace receiver. */
function startOtlpReceiver() {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(raw) as {
          resourceSpans: Array<{
            resource: { attributes: OtlpSpan['attributes'] };
            scopeSpans: Array<{ spans: OtlpSpan[] }>;
          }>;
        };
        for (const resourceSpan of body.resourceSpans) {
          const serviceName = resourceSpan.resource.attributes.find((a) => a.key === 'service.name')
            ?.value.stringValue;
          for (const scope of resourceSpan.scopeSpans) {
            for (const span of scope.spans) spans.push({ ...span, serviceName });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, spans };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Starts the fixture and resolves with its URL once it logs that it listens. */
async function startFixture(env: Record<string, string>) {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{
    test: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }> = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.test(line))) waiter.resolve(line);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const waitForLog = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = lines.find((l) => l.msg === msg);
      if (seen) return resolve(seen);
      waiters.push({ test: (l) => l.msg === msg, resolve });
      child.once('exit', (code) =>
        reject(new Error(`fixture exited (${code}) before logging "${msg}": ${stderr}`)),
      );
    });
  const listening = await waitForLog('listening');
  return { child, lines, waitForLog, url: `http://127.0.0.1:${String(listening.port)}` };
}

describe('a kit service process', () => {
  const receiver = startOtlpReceiver();
  const upstreamHeaders: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    upstreamHeaders.push(req.headers);
    res.writeHead(204).end();
  });
  let fixture: Awaited<ReturnType<typeof startFixture>>;

  beforeAll(async () => {
    if (!existsSync(KIT_DIST)) throw new Error(`${KIT_DIST} is missing: run \`make build\` first`);
    const otlpUrl = await listen(receiver.server);
    const upstreamUrl = await listen(upstream);
    fixture = await startFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      UPSTREAM_URL: `${upstreamUrl}/ping`,
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
  });
  afterAll(() => {
    fixture?.child.kill('SIGKILL');
    receiver.server.close();
    upstream.close();
  });

  it('exports spans over OTLP and propagates the trace context on outbound calls', async () => {
    const res = await fetch(`${fixture.url}/call-upstream`);
    expect(await res.json()).toEqual({ upstream: 204 });

    const traceparent = upstreamHeaders.at(-1)?.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceId = String(traceparent).split('-')[1];

    const serverSpan = await waitFor(
      () =>
        receiver.spans.find(
          (s) =>
            s.traceId === traceId &&
            s.kind === 2 && // SERVER
            s.attributes.some(
              (a) => a.key === 'http.route' && a.value.stringValue === '/call-upstream',
            ),
        ),
      'the SERVER span of /call-upstream',
    );
    // The service name comes from the entry's package (@pelita/kit for this fixture).
    expect(serverSpan.serviceName).toBe('kit');
    // The outbound fetch is a CLIENT span of the same trace.
    await waitFor(
      () => receiver.spans.find((s) => s.traceId === traceId && s.kind === 3),
      'the CLIENT span of the fetch',
    );
    // The request's access-log line names the trace, though it is written after the answer.
    const accessLine = await waitFor(
      () =>
        fixture.lines.find(
          (l) =>
            l.msg === 'request completed' &&
            (l.req as { url?: string } | undefined)?.url === '/call-upstream',
        ),
      'the access-log line of /call-upstream',
    );
    expect(accessLine.trace_id).toBe(traceId);
  });

  it('keeps idle connections open longer than clients do, so a client never reuses a closing one', async () => {
    const res = await fetch(`${fixture.url}/health`);
    await res.arrayBuffer();
    // Clients (undici, Node's agent) end idle connections after 4-5 s, or sooner when told this.
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('on SIGTERM stops accepting, finishes the in-flight request and exits 0', async () => {
    const { child, url, waitForLog } = fixture;
    const inFlight = fetch(`${url}/slow?ms=1500`);
    await waitForLog('slow request started');
    const exited = once(child as ChildProcess, 'exit') as Promise<[number | null, string | null]>;
    child.kill('SIGTERM');
    await waitForLog('shutting down');

    await expect(fetch(`${url}/health`)).rejects.toThrow();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ waited: 1500 });

    const [code] = await exited;
    expect(code).toBe(0);
    const messages = fixture.lines.map((l) => l.msg);
    expect(messages.indexOf('dependencies closed')).toBeGreaterThan(
      messages.indexOf('shutting down'),
    );
    expect(messages).toContain('stopped');
    // The in-flight request's connection (kept alive by fetch) closed once its answer was sent,
    // not at the deadline.
    expect(messages).not.toContain('shutdown deadline reached, closing connections');
  });
});

describe('a kit service process sampling by OTEL_TRACES_SAMPLER', () => {
  const receiver = startOtlpReceiver();
  const upstreamHeaders: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    upstreamHeaders.push(req.headers);
    res.writeHead(204).end();
  });
  let fixture: Awaited<ReturnType<typeof startFixture>>;

  beforeAll(async () => {
    const otlpUrl = await listen(receiver.server);
    const upstreamUrl = await listen(upstream);
    // Parent-based with a ratio of 0: new traces are never sampled, a sampled caller's always are.
    fixture = await startFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      UPSTREAM_URL: `${upstreamUrl}/ping`,
    });
  });
  afterAll(() => {
    fixture?.child.kill('SIGKILL');
    receiver.server.close();
    upstream.close();
  });

  it('follows a sampled parent and drops traces it starts itself', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const sampled = await fetch(`${fixture.url}/call-upstream`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(sampled.status).toBe(200);
    expect(upstreamHeaders.at(-1)?.traceparent).toMatch(
      new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`),
    );
    await waitFor(
      () => receiver.spans.find((s) => s.traceId === traceId && s.kind === 2),
      'the SERVER span of the sampled request',
    );

    const unsampled = await fetch(`${fixture.url}/call-upstream`);
    expect(unsampled.status).toBe(200);
    // The context still travels, marked not sampled, and no span of that trace is exported.
    const propagated = String(upstreamHeaders.at(-1)?.traceparent);
    expect(propagated).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const ownTraceId = propagated.split('-')[1];
    // A sampled request after it: once its spans are in, the unsampled one's would be too.
    const marker = 'a3ce929d0e0e47364bf92f3577b34da6';
    await fetch(`${fixture.url}/call-upstream`, {
      headers: { traceparent: `00-${marker}-00f067aa0ba902b7-01` },
    });
    await waitFor(
      () => receiver.spans.find((s) => s.traceId === marker && s.kind === 2),
      'the SERVER span of the later sampled request',
    );
    expect(receiver.spans.filter((s) => s.traceId === ownTraceId)).toEqual([]);
  });
});
