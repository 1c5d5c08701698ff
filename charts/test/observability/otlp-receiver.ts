/**
 * An OpenTelemetry-compatible trace receiver for tests: OTLP/HTTP on `/v1/traces`, in JSON (what
 * the Node services' exporter sends) and in protobuf (what OPA's Go exporter sends), gzip or not.
 * It keeps only what a test asks about: trace, span and parent ids, name, kind, service name.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedSpan {
  serviceName: string | undefined;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
}

export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** host:port, for exporters configured with an address (OPA). */
  address: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

// ---- protobuf: just the fields of ExportTraceServiceRequest read here ----

type Field = { number: number; bytes?: Buffer; varint?: number };

function readVarint(buf: Buffer, pos: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, pos];
    shift += 7;
  }
}

/** The top-level fields of one message (nested messages stay bytes, read on demand). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, next] = readVarint(buf, pos);
    pos = next;
    const number = Math.floor(key / 8);
    switch (key & 7) {
      case 0: {
        const [varint, after] = readVarint(buf, pos);
        out.push({ number, varint });
        pos = after;
        break;
      }
      case 1:
        pos += 8;
        break;
      case 2: {
        const [length, after] = readVarint(buf, pos);
        out.push({ number, bytes: buf.subarray(after, after + length) });
        pos = after + length;
        break;
      }
      case 5:
        pos += 4;
        break;
      default:
        throw new Error(`unsupported protobuf wire type ${key & 7}`);
    }
  }
  return out;
}

const each = (buf: Buffer, number: number) =>
  fields(buf).flatMap((f) => (f.number === number && f.bytes ? [f.bytes] : []));
const first = (buf: Buffer, number: number) => fields(buf).find((f) => f.number === number);

function protobufSpans(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of each(body, 1)) {
    let serviceName: string | undefined;
    for (const resource of each(resourceSpans, 1)) {
      for (const attribute of each(resource, 1)) {
        if (first(attribute, 1)?.bytes?.toString('utf8') !== 'service.name') continue;
        const value = first(attribute, 2)?.bytes;
        serviceName = value ? first(value, 1)?.bytes?.toString('utf8') : undefined;
      }
    }
    for (const scopeSpans of each(resourceSpans, 2)) {
      for (const span of each(scopeSpans, 2)) {
        const hex = (n: number) => first(span, n)?.bytes?.toString('hex') ?? '';
        spans.push({
          serviceName,
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: first(span, 5)?.bytes?.toString('utf8') ?? '',
          kind: first(span, 6)?.varint ?? 0,
        });
      }
    }
  }
  return spans;
}

// ---- JSON: ids are hex strings ----

interface JsonRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
      }>;
    }>;
  }>;
}

function jsonSpans(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const serviceName = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')
      ?.value.stringValue;
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((s) => ({
        serviceName,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        if (req.url !== '/v1/traces') throw new Error(`no ${req.url} here`);
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const json = (req.headers['content-type'] ?? '').includes('json');
        spans.push(...(json ? jsonSpans(body) : protobufSpans(body)));
        // An empty ExportTraceServiceResponse: `{}` in JSON, no bytes in protobuf.
        res.writeHead(200, {
          'content-type': json ? 'application/json' : 'application/x-protobuf',
        });
        res.end(json ? '{}' : undefined);
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
