/**
 * PROXY_SERVICE_TOKEN on and off, the upstream metrics, and the log lines: none of the secrets a
 * whole session of calls carried (caller token, target credentials) is in any of them.
 */
import { startUpstream, type RecordingUpstream } from './support/recording-upstream';
import {
  errorOf,
  expectNoSecretsIn,
  startProxy,
  type ProxyUnderTest,
} from './support/proxy-under-test';

const SERVICE_TOKEN = 'svc-tok-4b1d9c';
const TARGET_TOKEN = 'target-tok-77aa';

describe('caller authentication with PROXY_SERVICE_TOKEN', () => {
  let upstream: RecordingUpstream;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy({
      ALLOWED_TARGETS: '127.0.0.0/8',
      PROXY_SERVICE_TOKEN: SERVICE_TOKEN,
    });
  });
  afterAll(async () => {
    expectNoSecretsIn(proxy.logs, [SERVICE_TOKEN, TARGET_TOKEN]);
    await proxy.stop();
    await upstream.close();
  });
  beforeEach(() => upstream.requests.splice(0));

  const connection = (auth?: unknown) => ({ host: upstream.url, auth, endpoint: { path: '/x' } });

  it.each([
    ['no Authorization', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['the token in another scheme', { authorization: `Basic ${SERVICE_TOKEN}` }],
  ])('answers 401 to a caller with %s, and forwards nothing', async (_case, headers) => {
    const res = await proxy.proxy(connection(), headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await errorOf(res)).code).toBe('unauthorized');
    expect(upstream.requests).toHaveLength(0);
  });

  it('checks the token before validating the description', async () => {
    const res = await proxy.proxy(undefined);
    expect(res.status).toBe(401);
  });

  it('forwards for a caller with the token, without passing the token on', async () => {
    const plain = await proxy.proxy(connection(), { authorization: `Bearer ${SERVICE_TOKEN}` });
    expect(plain.status).toBe(200);
    expect(upstream.requests[0]?.headers.authorization).toBeUndefined();

    const withTargetAuth = await proxy.proxy(connection({ type: 'bearer', token: TARGET_TOKEN }), {
      authorization: `Bearer ${SERVICE_TOKEN}`,
    });
    expect(withTargetAuth.status).toBe(200);
    expect(upstream.requests[1]?.headers.authorization).toBe(`Bearer ${TARGET_TOKEN}`);
  });

  it('leaves /health open', async () => {
    expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
  });
});

describe('without PROXY_SERVICE_TOKEN', () => {
  it('forwards for any caller', async () => {
    const upstream = await startUpstream();
    const proxy = await startProxy({ ALLOWED_TARGETS: '127.0.0.0/8' });
    try {
      const res = await proxy.proxy({ host: upstream.url, endpoint: {} });
      expect(res.status).toBe(200);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe('metrics and logs of forwarded calls', () => {
  it('counts outcomes and logs host, method, path, status and duration without credentials', async () => {
    const upstream = await startUpstream();
    upstream.on('/missing', (_req, res) => res.writeHead(404).end());
    const proxy = await startProxy({ ALLOWED_TARGETS: '127.0.0.1/32' });
    const secrets = ['basic-pass-31', 'hdr-secret-99', 'jwt-pass-5'];
    try {
      await proxy.proxy({
        host: upstream.url,
        name: 'orders api',
        auth: { type: 'basic', user: 'u', password: secrets[0] },
        headers: { 'X-Api-Key': secrets[1] },
        endpoint: { path: '/orders/1', method: 'get', params: [{ key: 'token', value: 'q' }] },
      });
      await proxy.proxy({ host: upstream.url, endpoint: { path: '/missing' } });
      await proxy.proxy({
        host: `http://127.0.0.2:${upstream.port}`,
        auth: { type: 'jwt', user: 'u', password: secrets[2], loginPath: '/login' },
        endpoint: {},
      });

      const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
      expect(metrics).toContain('http_proxy_upstream_requests_total{outcome="2xx"} 1');
      expect(metrics).toContain('http_proxy_upstream_requests_total{outcome="4xx"} 1');
      expect(metrics).toContain('http_proxy_upstream_requests_total{outcome="target_forbidden"} 1');
      expect(metrics).toContain('http_proxy_upstream_duration_seconds_count{outcome="2xx"} 1');

      const forwarded = proxy.logs.lines
        .map((line) => JSON.parse(line) as { msg: string; upstream?: Record<string, unknown> })
        .filter((line) => line.upstream);
      // One line per request: the access log line carries the forwarded call's figures.
      expect(forwarded).toHaveLength(3);
      expect(forwarded[0]).toMatchObject({
        msg: 'request completed',
        res: { statusCode: 200 },
        upstream: {
          name: 'orders api',
          method: 'GET',
          host: `127.0.0.1:${upstream.port}`,
          path: '/orders/1',
          status: 200,
          outcome: '2xx',
          durationMs: expect.any(Number),
        },
      });
      expect(forwarded[2]).toMatchObject({
        level: 'warn',
        msg: 'request completed',
        res: { statusCode: 403 },
        upstream: { outcome: 'target_forbidden' },
      });
      expectNoSecretsIn(proxy.logs, [
        ...secrets,
        Buffer.from(`u:${secrets[0]}`).toString('base64'),
      ]);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});
