/**
 * A route can read the JSON body's bytes exactly as they came (`rawBodyOf`), whichever path the
 * request takes — the fast path of a literal route or express's own — so a signature over them
 * (a webhook's HMAC) can be checked.
 */
import { createHash } from 'node:crypto';
import {
  createLogger,
  createService,
  defineRoute,
  rawBodyOf,
  serve,
  type RunningServer,
} from '../../src';

describe('the raw JSON body', () => {
  let running: RunningServer;
  const digest = (bytes: Buffer | string | undefined) =>
    bytes === undefined ? 'none' : createHash('sha256').update(bytes).digest('hex');

  beforeAll(async () => {
    const answer = (_input: unknown, req: Parameters<typeof rawBodyOf>[0]) => ({
      digest: digest(rawBodyOf(req)),
    });
    const app = createService({
      name: 'raw',
      logger: createLogger({ name: 'raw', level: 'silent' }),
      routes: [
        defineRoute({
          method: 'post',
          path: '/literal',
          summary: 'A literal route (fast path)',
          public: true,
          responses: { 200: { description: 'The digest of the raw body' } },
          handler: answer,
        }),
        defineRoute({
          method: 'post',
          path: '/with/:param',
          summary: "A route with a parameter (express's path)",
          public: true,
          responses: { 200: { description: 'The digest of the raw body' } },
          handler: answer,
        }),
      ],
    });
    running = await serve(app, {
      port: 0,
      host: '127.0.0.1',
      logger: createLogger({ name: 'raw', level: 'silent' }),
      shutdownTimeoutMs: 2000,
      handleSignals: false,
    });
  });
  afterAll(() => running?.stop());

  // Spacing, key order and an escape a re-serialised object would not keep.
  const body = '{ "b": 1,\n  "a": "caf\\u00e9" }';

  it.each(['/literal', '/with/x'])('keeps the exact bytes on %s', async (path) => {
    const res = await fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(await res.json()).toEqual({ digest: digest(body) });
  });

  it('has none without a body', async () => {
    const res = await fetch(`${running.url}/with/x`, { method: 'POST' });
    expect(await res.json()).toEqual({ digest: 'none' });
  });
});
