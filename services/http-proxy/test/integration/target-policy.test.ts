/**
 * SSRF protection end to end: with ALLOWED_TARGETS unset no loopback, link-local or private
 * target is reached, whatever its spelling; the allowlist permits exactly what it lists; and
 * redirects are re-checked on every hop.
 */
import type { ServerResponse } from 'node:http';
import { startUpstream, type RecordingUpstream } from './support/recording-upstream';
import { errorOf, startProxy, type ProxyUnderTest } from './support/proxy-under-test';

describe('targets that are not public', () => {
  // Dual-stack on every local address: without the policy, each loopback spelling reaches it.
  let local: RecordingUpstream;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    local = await startUpstream('::');
    proxy = await startProxy({ OUTBOUND_TIMEOUT_MS: '3000' });
  });
  afterAll(async () => {
    await proxy.stop();
    await local.close();
  });

  it('would be reachable without the policy (the test is meaningful)', async () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '[::1]', '[::ffff:127.0.0.1]', 'localhost']) {
      expect((await fetch(`http://${host}:${local.port}/`)).status).toBe(200);
    }
    local.requests.splice(0);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['localhost', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['10.0.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['[fe80::1]', 'link-local'],
    ['[fd00::1]', 'private'],
    ['[64:ff9b::a9fe:a9fe]', 'link-local'],
  ])('refuses http://%s with 403 target_forbidden (%s)', async (host, kind) => {
    const started = Date.now();
    const res = await proxy.proxy({
      host: `http://${host}:${local.port}`,
      auth: { type: 'bearer', token: 'never-sent' },
      endpoint: { path: '/latest/meta-data/' },
    });
    expect(res.status).toBe(403);
    const error = await errorOf(res);
    expect(error.code).toBe('target_forbidden');
    expect(error.message).toContain(`a ${kind} address`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(local.requests).toHaveLength(0);
  });

  it('refuses a JWT login to a forbidden host before sending the credentials', async () => {
    const res = await proxy.proxy({
      host: `http://localhost:${local.port}`,
      auth: { type: 'jwt', user: 'u', password: 'p', loginPath: '/login' },
      endpoint: { path: '/x' },
    });
    expect(res.status).toBe(403);
    expect(local.requests).toHaveLength(0);
  });
});

describe('ALLOWED_TARGETS', () => {
  let local: RecordingUpstream;
  beforeAll(async () => {
    local = await startUpstream('::');
  });
  afterAll(() => local.close());

  async function statusesWith(allowed: string, hosts: string[]): Promise<number[]> {
    const proxy = await startProxy({ ALLOWED_TARGETS: allowed });
    try {
      const statuses: number[] = [];
      for (const host of hosts) {
        const res = await proxy.proxy({ host: `http://${host}:${local.port}`, endpoint: {} });
        statuses.push(res.status);
      }
      return statuses;
    } finally {
      await proxy.stop();
    }
  }

  it('permits the listed range and nothing next to it', async () => {
    local.requests.splice(0);
    expect(
      await statusesWith('127.0.0.1/32', ['127.0.0.1', '[::ffff:127.0.0.1]', '127.0.0.2', '[::1]']),
    ).toEqual([200, 200, 403, 403]);
    expect(local.requests).toHaveLength(2);
  });

  it('permits a listed IPv6 address', async () => {
    expect(await statusesWith('::1', ['[::1]', '127.0.0.1'])).toEqual([200, 403]);
  });

  it('permits a listed host name, but not its address written out', async () => {
    expect(await statusesWith('localhost', ['localhost', '127.0.0.1'])).toEqual([200, 403]);
  });

  it('permits a whole range', async () => {
    expect(await statusesWith('127.0.0.0/8,::1', ['127.0.0.1', '127.9.9.9', '[::1]'])).toEqual([
      200, 200, 200,
    ]);
  });
});

describe('redirects', () => {
  let first: RecordingUpstream;
  let second: RecordingUpstream;
  let forbidden: RecordingUpstream;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    first = await startUpstream('127.0.0.1');
    second = await startUpstream('127.0.0.1');
    forbidden = await startUpstream('::');
    proxy = await startProxy({ ALLOWED_TARGETS: '127.0.0.1/32' });
    const redirect = (status: number, location: string) => {
      return (_req: unknown, res: ServerResponse) => {
        res.writeHead(status, { location }).end();
      };
    };
    first.on('/same-origin', redirect(302, '/final'));
    first.on('/cross-origin', redirect(307, `${second.url}/final`));
    first.on('/to-forbidden', redirect(302, `http://127.0.0.2:${forbidden.port}/steal`));
    first.on('/to-forbidden-v6', redirect(302, `http://[::1]:${forbidden.port}/steal`));
    first.on('/see-other', redirect(303, '/final'));
    first.on('/loop', redirect(302, '/loop'));
    first.on('/to-file', redirect(302, 'file:///etc/passwd'));
  });
  afterAll(async () => {
    await proxy.stop();
    await Promise.all([first.close(), second.close(), forbidden.close()]);
  });
  beforeEach(() => {
    for (const upstream of [first, second, forbidden]) upstream.requests.splice(0);
  });

  const follow = (path: string, method = 'get') =>
    proxy.proxy({
      host: first.url,
      auth: { type: 'bearer', token: 'origin-only-token' },
      headers: { Cookie: 'sid=1', 'X-Api-Key': 'k', 'X-Trace-Note': 'kept' },
      endpoint: { path, method, body: { a: 1 } },
    });

  it('follows a same-origin redirect with the credentials', async () => {
    const res = await follow('/same-origin');
    expect(res.status).toBe(200);
    expect(first.requests.map((r) => r.url)).toEqual(['/same-origin', '/final']);
    expect(first.requests[1]?.headers.authorization).toBe('Bearer origin-only-token');
  });

  it('drops Authorization, Cookie and key headers when the redirect leaves the origin', async () => {
    const res = await follow('/cross-origin', 'post');
    expect(res.status).toBe(200);
    const arrived = second.requests[0]!;
    expect(arrived.method).toBe('POST');
    expect(arrived.body.toString()).toBe('a=1');
    expect(arrived.headers.authorization).toBeUndefined();
    expect(arrived.headers.cookie).toBeUndefined();
    expect(arrived.headers['x-api-key']).toBeUndefined();
    expect(arrived.headers['x-trace-note']).toBe('kept');
  });

  it.each(['/to-forbidden', '/to-forbidden-v6'])(
    're-checks every hop: %s is refused with 403 and never reached',
    async (path) => {
      const res = await follow(path);
      expect(res.status).toBe(403);
      expect((await errorOf(res)).code).toBe('target_forbidden');
      expect(forbidden.requests).toHaveLength(0);
    },
  );

  it('turns a POST into a GET on 303', async () => {
    await follow('/see-other', 'post');
    expect(first.requests.map((r) => [r.method, r.url, r.body.length])).toEqual([
      ['POST', '/see-other', 3],
      ['GET', '/final', 0],
    ]);
  });

  it('stops after five redirects with a 500', async () => {
    const res = await follow('/loop');
    expect(res.status).toBe(500);
    expect(await errorOf(res)).toEqual({
      code: 'upstream_error',
      message: 'The forwarded request failed: more than 5 redirects',
    });
    expect(first.requests).toHaveLength(6);
  });

  it('refuses a redirect to a non-HTTP URL', async () => {
    const res = await follow('/to-file');
    expect(res.status).toBe(500);
    expect((await errorOf(res)).message).toContain('file:');
  });

  it('hands redirects back unfollowed when MAX_REDIRECTS is 0', async () => {
    const unfollowing = await startProxy({ ALLOWED_TARGETS: '127.0.0.1/32', MAX_REDIRECTS: '0' });
    try {
      const res = await unfollowing.proxy({ host: first.url, endpoint: { path: '/same-origin' } });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/final');
      expect(first.requests).toHaveLength(1);
    } finally {
      await unfollowing.stop();
    }
  });
});
