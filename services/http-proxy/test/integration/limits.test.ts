/** The outbound deadline (504) and the response size cap (502), against a real slow or big target. */
import { startUpstream, type RecordingUpstream } from './support/recording-upstream';
import { errorOf, startProxy, type ProxyUnderTest } from './support/proxy-under-test';

// Long enough that a loaded machine still answers the quick targets within it.
const TIMEOUT_MS = 1000;
const CAP = 1024;

describe('outbound limits', () => {
  const closedByProxy: string[] = [];
  // Settled by the /watched handler: the call reached the target, and its socket closed.
  let watchedArrived: () => void = () => undefined;
  let watchedClosed: () => void = () => undefined;
  let upstream: RecordingUpstream;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy({
      ALLOWED_TARGETS: '127.0.0.0/8',
      OUTBOUND_TIMEOUT_MS: String(TIMEOUT_MS),
      MAX_RESPONSE_BYTES: String(CAP),
    });
    // Never answers: closed by upstream.close() at the end.
    upstream.on('/silent', () => undefined);
    upstream.on('/stalls-mid-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part, then nothing');
    });
    upstream.on('/slow-login', () => undefined);
    upstream.on('/watched', (req) => {
      req.socket.once('close', () => {
        closedByProxy.push(req.url ?? '');
        watchedClosed();
      });
      watchedArrived();
    });
    upstream.on('/declared-big', (_req, res) => {
      res.writeHead(200, { 'content-length': String(CAP * 2) }).end(Buffer.alloc(CAP * 2));
    });
    upstream.on('/chunked-big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < 8; i++) res.write(Buffer.alloc(CAP / 4));
      res.end();
    });
    upstream.on('/exactly-cap', (_req, res) => {
      res.writeHead(200).end(Buffer.alloc(CAP, 7));
    });
  });
  afterAll(async () => {
    await proxy.stop();
    await upstream.close();
  });

  const call = (path: string, auth?: unknown) =>
    proxy.proxy({ host: upstream.url, auth, endpoint: { path } });

  async function expectTimeout(res: Promise<Response>) {
    const started = Date.now();
    const answer = await res;
    const elapsed = Date.now() - started;
    expect(answer.status).toBe(504);
    expect(await errorOf(answer)).toEqual({
      code: 'upstream_timeout',
      message: `The target did not answer within ${TIMEOUT_MS} ms`,
    });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
  }

  it('answers 504 when the target sends nothing in time', async () => {
    await expectTimeout(call('/silent'));
  });

  it('answers 504 when the body stops coming', async () => {
    await expectTimeout(call('/stalls-mid-body'));
  });

  it('answers 504 when the JWT login hangs (one deadline for the whole call)', async () => {
    await expectTimeout(
      call('/data', { type: 'jwt', user: 'u', password: 'p', loginPath: '/slow-login' }),
    );
    expect(upstream.requests.some((r) => r.url === '/data')).toBe(false);
  });

  it('stops the forwarded call when the caller hangs up', async () => {
    const arrived = new Promise<void>((resolve) => (watchedArrived = resolve));
    const closed = new Promise<void>((resolve) => (watchedClosed = resolve));
    const caller = new AbortController();
    const pending = fetch(`${proxy.url}/proxy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ connection: { host: upstream.url, endpoint: { path: '/watched' } } }),
      signal: caller.signal,
    });
    await arrived;
    caller.abort();
    await expect(pending).rejects.toThrow();
    await closed;
    expect(closedByProxy).toEqual(['/watched']);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toContain('http_proxy_upstream_requests_total{outcome="caller_gone"} 1');
  });

  it.each(['/declared-big', '/chunked-big'])(
    'answers 502 when the answer exceeds MAX_RESPONSE_BYTES (%s)',
    async (path) => {
      const res = await call(path);
      expect(res.status).toBe(502);
      expect(await errorOf(res)).toEqual({
        code: 'upstream_response_too_large',
        message: `The target's answer is larger than ${CAP} bytes (MAX_RESPONSE_BYTES)`,
      });
    },
  );

  it('passes a HEAD answer that declares a length above the cap', async () => {
    const res = await proxy.proxy({
      host: upstream.url,
      endpoint: { path: '/declared-big', method: 'head' },
    });
    expect(res.status).toBe(200);
  });

  it('passes an answer of exactly MAX_RESPONSE_BYTES', async () => {
    const res = await call('/exactly-cap');
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.alloc(CAP, 7))).toBe(true);
  });

  it('still serves normally afterwards (pooled connections were not poisoned)', async () => {
    const res = await call('/ok');
    expect(res.status).toBe(200);
  });
});
