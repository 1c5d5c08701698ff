/**
 * The kit's fast path (literal routes with a plain JSON body skip express's router and body
 * parser) against express's own path on the same app: the same answers, error bodies, metrics
 * and access-log lines, whichever path a request takes.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { z } from 'zod';
import {
  addToAccessLog,
  createLogger,
  createService,
  defineRoute,
  serve,
  type RunningServer,
} from '../../src';

class LogCapture extends Writable {
  readonly lines: Array<Record<string, any>> = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      this.lines.push(JSON.parse(line) as Record<string, any>);
    }
    done();
  }
}

const Order = z.object({ item: z.string().min(1), quantity: z.number().int().positive() });

describe('the fast path of literal routes', () => {
  const logs = new LogCapture();
  const seen: Array<{ hasStatus: boolean; ownLog: boolean; path: string }> = [];
  let running: RunningServer;

  beforeAll(async () => {
    const logger = createLogger({ name: 'fast', level: 'info', destination: logs });
    const app = createService({
      name: 'fast',
      logger,
      bodyLimit: '1kb',
      routes: [
        defineRoute({
          method: 'post',
          path: '/orders',
          summary: 'Place an order',
          request: { body: Order },
          responses: { 201: { description: 'Placed' } },
          successStatus: 201,
          handler: ({ body }, req, res) => {
            // Express's request and response methods are there on either path; `req.log` comes
            // from the prototype, never as a property of each request (its own hidden class).
            seen.push({
              hasStatus: typeof res.status === 'function',
              ownLog: Object.hasOwn(req, 'log'),
              path: req.path,
            });
            addToAccessLog(res, { order: { item: body.item } });
            return { placed: body.quantity };
          },
        }),
        defineRoute({
          method: 'get',
          path: '/orders/latest',
          summary: 'The latest order',
          responses: { 200: { description: 'The order' } },
          handler: (_input, req) => {
            req.log.info('latest order read');
            return { item: 'tea' };
          },
        }),
      ],
    });
    running = await serve(app, {
      port: 0,
      host: '127.0.0.1',
      logger,
      shutdownTimeoutMs: 2000,
      handleSignals: false,
    });
  });
  afterAll(() => running.stop());

  const send = (path: string, body: string | undefined, headers: Record<string, string> = {}) =>
    fetch(`${running.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
  const accessLines = (requestId: string | null) =>
    logs.lines.filter((line) => line.request_id === requestId && line.msg === 'request completed');

  it('answers a valid JSON body as express would, with one access-log line carrying added fields', async () => {
    // application/json takes the fast path; a trailing slash and a +json type take express's.
    for (const [path, type] of [
      ['/orders', 'application/json'],
      ['/orders', 'application/json; charset=UTF-8'],
      ['/orders/', 'application/json'],
    ] as const) {
      const res = await send(path, '{"item":"tea","quantity":2}', { 'content-type': type });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({ placed: 2 });
      const lines = accessLines(res.headers.get('x-request-id'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'info',
        req: { method: 'POST', url: path },
        res: { statusCode: 201 },
        order: { item: 'tea' },
      });
    }
    expect(seen.every((call) => call.hasStatus && !call.ownLog)).toBe(true);
  });

  it('rejects bodies the way express.json does: 400 unparsable or not an object, 413 too large', async () => {
    const malformed = await send('/orders', '{"item": ');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_request',
    );
    const scalar = await send('/orders', '"tea"');
    expect(scalar.status).toBe(400);
    const invalid = await send('/orders', '{"item":"","quantity":0}');
    expect(invalid.status).toBe(400);
    expect(
      ((await invalid.json()) as { error: { details: Array<{ path: string }> } }).error.details.map(
        (d) => d.path,
      ),
    ).toEqual(['item', 'quantity']);
    // Declared too large: express answers; streamed without a length: the fast path counts.
    const big = JSON.stringify({ item: 'x'.repeat(2000), quantity: 1 });
    expect((await send('/orders', big)).status).toBe(413);
    expect(await chunkedPost('/orders', big)).toEqual({
      status: 413,
      code: 'payload_too_large',
    });
    expect(await chunkedPost('/orders', '{"item":"tea","quantity":3}')).toEqual({
      status: 201,
      code: undefined,
    });
  });

  it('gives handlers a request logger bound to the request id', async () => {
    const res = await send('/orders/latest', undefined);
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    expect(logs.lines.find((line) => line.msg === 'latest order read')?.request_id).toBe(id);
  });

  it('counts fast and express requests under the same route template', async () => {
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_server_request_duration_seconds_count\{method="POST",route="\/orders",status_code="201"\} [3-9]/,
    );
    expect(metrics).toMatch(
      /http_server_request_duration_seconds_count\{method="GET",route="\/orders\/latest",status_code="200"\} 1/,
    );
  });

  /** A POST with `transfer-encoding: chunked` (no content-length), as streaming clients send. */
  function chunkedPost(path: string, body: string): Promise<{ status: number; code?: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${running.url}${path}`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              error?: { code: string };
            };
            resolve({ status: res.statusCode ?? 0, code: answer.error?.code });
          });
        },
      );
      req.on('error', reject);
      for (let i = 0; i < body.length; i += 100) req.write(body.slice(i, i + 100));
      req.end();
    });
  }
});
