/**
 * The kit around a tiny in-test service: health, readiness against the real PostgreSQL of
 * `make testenv`, metrics, OpenAPI, validation, 404, and credential redaction in the logs.
 */
import { Writable } from 'node:stream';
import { runSchemathesis } from '@pelita/fuzz';
import { requireEnv } from '@pelita/testenv';
import express from 'express';
import pg from 'pg';
import { z } from 'zod';
import { createLogger, createService, defineRoute, serve, type RunningServer } from '../../src';

const { POSTGRES_URL } = requireEnv('POSTGRES_URL');

/** Captures every log line the service writes. */
class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
}

const Greeting = z.object({
  name: z.string().min(1),
  connection: z.object({ auth: z.object({ user: z.string(), password: z.string() }) }).optional(),
});

function tinyService(logs: LogCapture, postgresUrl: string) {
  const pool = new pg.Pool({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 });
  const logger = createLogger({ name: 'tiny', level: 'debug', destination: logs });
  const routes = [
    defineRoute({
      method: 'post',
      path: '/greetings/:lang',
      summary: 'Greet someone',
      request: {
        params: z.object({ lang: z.enum(['en', 'id']) }),
        body: Greeting,
      },
      responses: { 200: { description: 'A greeting', schema: z.object({ text: z.string() }) } },
      handler: ({ params, body }, req) => {
        // Logs the whole body and headers on purpose: redaction must catch what is in them.
        req.log.info({ body, headers: req.headers }, 'greeting requested');
        return { text: `${params.lang === 'en' ? 'Hello' : 'Halo'}, ${body.name}` };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/notes',
      summary: 'Count the words of a plain-text note',
      // A body the JSON parser does not read: parsed by route middleware, then validated.
      before: [express.text()],
      request: { body: z.string().trim().min(1), bodyContentType: 'text/plain' },
      responses: { 200: { description: 'Word count', schema: z.object({ words: z.number() }) } },
      handler: ({ body }) => ({ words: body.split(/\s+/).length }),
    }),
  ];
  routes.push(
    defineRoute({
      method: 'get',
      path: '/notes/count',
      summary: 'How many notes are stored',
      responses: { 200: { description: 'The count', schema: z.object({ notes: z.number() }) } },
      handler: async () => {
        const { rows } = await pool.query<{ notes: number }>('select 0 as notes');
        return { notes: rows[0]?.notes ?? 0 };
      },
    }),
  );
  const app = createService({
    name: 'tiny',
    logger,
    routes,
    readiness: { postgres: () => pool.query('select 1') },
  });
  return { app, logger, pool };
}

describe('a service built with the kit', () => {
  const logs = new LogCapture();
  let running: RunningServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    const service = tinyService(logs, POSTGRES_URL);
    pool = service.pool;
    running = await serve(service.app, {
      port: 0,
      host: '127.0.0.1',
      logger: service.logger,
      shutdownTimeoutMs: 2000,
      handleSignals: false,
      onShutdown: [() => pool.end()],
    });
  });
  afterAll(() => running.stop());

  const url = (path: string) => `${running.url}${path}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('answers /health with the spec shape', async () => {
    const res = await fetch(url('/health'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; timestamp: string };
    expect(body.status).toBe('OK');
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  });

  it('is ready when PostgreSQL answers', async () => {
    const res = await fetch(url('/ready'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { postgres: { status: 'up' } } });
  });

  it('is not ready, with a 503 naming the dependency, when PostgreSQL is unreachable', async () => {
    const broken = tinyService(new LogCapture(), 'postgres://nobody:secret-pw@127.0.0.1:1/none');
    const other = await serve(broken.app, {
      port: 0,
      host: '127.0.0.1',
      logger: broken.logger,
      shutdownTimeoutMs: 1000,
      handleSignals: false,
      onShutdown: [() => broken.pool.end()],
    });
    try {
      const res = await fetch(`${other.url}/ready`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as {
        status: string;
        checks: { postgres: { status: string; error: string } };
      };
      expect(body.status).toBe('not_ready');
      expect(body.checks.postgres.status).toBe('down');
      expect(body.checks.postgres.error).toMatch(/ECONNREFUSED|connect/);
      expect(JSON.stringify(body)).not.toContain('secret-pw');
      // A route needing the database answers 503 too, naming neither host nor credentials.
      const query = await fetch(`${other.url}/notes/count`);
      expect(query.status).toBe(503);
      const answer = (await query.json()) as { error: { code: string; message: string } };
      expect(answer.error.code).toBe('dependency_unavailable');
      expect(JSON.stringify(answer)).not.toMatch(/secret-pw|127\.0\.0\.1|ECONNREFUSED/);
    } finally {
      await other.stop();
    }
  });

  it('validates the body and answers a 400 naming each bad field', async () => {
    const res = await post('/greetings/en', { name: '' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await res.json()) as {
      error: { code: string; message: string; details: unknown[] };
    };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details).toEqual([
      { in: 'body', path: 'name', message: expect.stringContaining('>=1') },
    ]);
  });

  it('answers a 400 for bad path parameters and for malformed JSON', async () => {
    const badParam = await post('/greetings/fr', { name: 'Ann' });
    expect(badParam.status).toBe(400);
    expect(
      ((await badParam.json()) as { error: { details: Array<{ in: string }> } }).error.details[0]
        ?.in,
    ).toBe('params');
    const malformed = await post('/greetings/en', '{"name": ');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_request',
    );
  });

  it('validates bodies parsed by route middleware', async () => {
    const note = (text: string) =>
      fetch(url('/notes'), {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: text,
      });
    expect(await (await note('three little words')).json()).toEqual({ words: 3 });
    expect((await note('   ')).status).toBe(400);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await fetch(url('/nothing-here'));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: 'not_found', message: 'No route for GET /nothing-here' },
    });
  });

  it('counts requests in the duration histogram by route template', async () => {
    expect((await post('/greetings/id', { name: 'Budi' })).status).toBe(200);
    const text = await (await fetch(url('/metrics'))).text();
    expect(text).toMatch(
      /http_server_request_duration_seconds_count\{method="POST",route="\/greetings\/:lang",status_code="200"\} [1-9]/,
    );
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('describes the validated route in /api-docs.json and serves the interactive page', async () => {
    const doc = (await (await fetch(url('/api-docs.json'))).json()) as {
      openapi: string;
      paths: Record<string, Record<string, any>>;
    };
    expect(doc.openapi).toBe('3.0.3');
    const op = doc.paths['/greetings/{lang}']?.post;
    expect(op.parameters).toEqual([
      { name: 'lang', in: 'path', required: true, schema: { type: 'string', enum: ['en', 'id'] } },
    ]);
    expect(op.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health', '/ready']));
    const page = await fetch(url('/api-docs/'));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
  });

  it('keeps credentials out of every log line', async () => {
    logs.lines.length = 0;
    const secrets = ['Bearer tok-8f1e2d', 'db-pass-77aa', 'nested-pass-31cc', 'cookie-val-9'];
    const res = await post(
      '/greetings/en',
      { name: 'Ann', connection: { auth: { user: 'ann', password: 'nested-pass-31cc' } } },
      {
        authorization: 'Bearer tok-8f1e2d',
        'x-db-password': 'db-pass-77aa',
        cookie: 'sid=cookie-val-9',
      },
    );
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const lines = logs.lines.filter((line) => line.includes(requestId ?? 'missing'));
    expect(lines.length).toBeGreaterThanOrEqual(2); // the handler's line and the access log
    for (const line of lines) {
      for (const secret of secrets) expect(line).not.toContain(secret.replace('Bearer ', ''));
    }
    const handlerLine = JSON.parse(lines.find((l) => l.includes('greeting requested')) ?? '{}');
    expect(handlerLine.body.connection.auth).toEqual({ user: 'ann', password: '[REDACTED]' });
    expect(handlerLine.headers.authorization).toBe('[REDACTED]');
    expect(handlerLine.headers['x-db-password']).toBe('[REDACTED]');
    expect(handlerLine.request_id).toBe(requestId);
  });

  it('echoes a sane caller request id and replaces an unsafe one', async () => {
    const kept = await fetch(url('/health'), { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await fetch(url('/health'), {
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('survives schemathesis: documented answers only, bad input rejected with 4xx, no crash', async () => {
    const result = await runSchemathesis({
      baseUrl: running.url,
      excludePathRegex: '^/(metrics|api-docs)',
    });
    if (!result.passed) throw new Error(result.output);
  }, 120_000);
});

describe('shutdown with a handler that outlives its client', () => {
  it('closes dependencies only after the last handler ends', async () => {
    const events: string[] = [];
    const logger = createLogger({ name: 'drain', level: 'silent' });
    const app = createService({
      name: 'drain',
      logger,
      routes: [
        defineRoute({
          method: 'get',
          path: '/work',
          summary: 'Works for 400 ms',
          responses: { 200: { description: 'Done' } },
          handler: async () => {
            events.push('handler started');
            await new Promise((resolve) => setTimeout(resolve, 400));
            events.push('handler finished');
            return { done: true };
          },
        }),
      ],
    });
    const server = await serve(app, {
      port: 0,
      host: '127.0.0.1',
      logger,
      shutdownTimeoutMs: 5000,
      handleSignals: false,
      onShutdown: [() => events.push('pool closed')],
    });
    const client = new AbortController();
    const request = fetch(`${server.url}/work`, { signal: client.signal }).catch(() => 'aborted');
    while (!events.includes('handler started')) await new Promise(setImmediate);
    client.abort(); // the client leaves; its socket closes while the handler still runs
    expect(await request).toBe('aborted');
    await server.stop();
    expect(events).toEqual(['handler started', 'handler finished', 'pool closed']);
  });
});
