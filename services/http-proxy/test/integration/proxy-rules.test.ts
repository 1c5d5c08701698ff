/**
 * `POST /proxy` against a real upstream on 127.0.0.1 (allowed by ALLOWED_TARGETS): seed 000 A
 * rules 1-8, body encodings, headers on every method, pass-through of status, headers and bytes.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { startUpstream, type RecordingUpstream } from './support/recording-upstream';
import { errorOf, startProxy, type ProxyUnderTest } from './support/proxy-under-test';

describe('POST /proxy', () => {
  let upstream: RecordingUpstream;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy({ ALLOWED_TARGETS: '127.0.0.0/8' });
  });
  afterAll(async () => {
    await proxy.stop();
    await upstream.close();
  });
  beforeEach(() => upstream.requests.splice(0));

  const last = () => upstream.requests[upstream.requests.length - 1]!;
  const call = (endpoint: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    proxy.proxy({ host: upstream.url, endpoint, ...extra });

  describe('rule 1: the description must name connection, host and endpoint', () => {
    it.each([
      ['connection', undefined, 'connection'],
      ['host', { endpoint: { path: '/' } }, 'connection.host'],
      ['endpoint', { host: 'http://127.0.0.1:1' }, 'connection.endpoint'],
    ])('answers 400 without %s, naming the field', async (_missing, connection, path) => {
      const res = await proxy.proxy(connection);
      expect(res.status).toBe(400);
      const body = (await res.json()) as {
        error: { code: string; message: string; details: Array<{ path: string }> };
      };
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.message).toContain(path);
      expect(body.error.details.map((d) => d.path)).toContain(path);
      expect(upstream.requests).toHaveLength(0);
    });

    it('answers 400 for a host that is no http(s) URL and for an unknown method', async () => {
      expect((await proxy.proxy({ host: 'ftp://x', endpoint: {} })).status).toBe(400);
      expect((await call({ method: 'connect' })).status).toBe(400);
      expect(upstream.requests).toHaveLength(0);
    });
  });

  it('rule 2: sends to host followed by path, keeping a base path of the host', async () => {
    await proxy.proxy({
      host: `${upstream.url}/v2`,
      endpoint: { path: '/users/7', method: 'get' },
    });
    expect(last().url).toBe('/v2/users/7');
  });

  describe('rule 4: GET and HEAD', () => {
    it('send params as the query and no body', async () => {
      for (const method of ['get', 'head']) {
        const res = await call({
          path: '/search?fixed=1',
          method,
          params: [
            { key: 'q', value: 'a b&c' },
            { key: 'page', value: '2' },
          ],
          body: { ignored: true },
        });
        expect(res.status).toBe(200);
        expect(last().method).toBe(method.toUpperCase());
        expect(last().url).toBe('/search?fixed=1&q=a+b%26c&page=2');
        expect(last().body).toHaveLength(0);
        expect(last().headers['content-type']).toBeUndefined();
      }
    });

    it('answers a HEAD target with its status and headers and an empty body', async () => {
      upstream.on('/head', (_req, res) => {
        res.writeHead(200, { 'x-total': '42', 'content-length': '1234' }).end();
      });
      const res = await call({ path: '/head', method: 'head' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total')).toBe('42');
      expect(res.headers.get('content-length')).toBe('0');
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    });
  });

  describe('rule 5: bodies of POST, PUT, PATCH and DELETE', () => {
    it.each(['post', 'put', 'patch', 'delete'])(
      '%s sends endpoint.body form-encoded by default',
      async (method) => {
        await call({ path: '/items', method, body: { name: 'Ann Lee', tags: ['a', 'b'] } });
        expect(last().method).toBe(method.toUpperCase());
        expect(last().headers['content-type']).toBe('application/x-www-form-urlencoded');
        expect(Object.fromEntries(new URLSearchParams(last().body.toString()))).toEqual({
          name: 'Ann Lee',
          'tags[]': 'b',
        });
        expect(new URLSearchParams(last().body.toString()).getAll('tags[]')).toEqual(['a', 'b']);
      },
    );

    it('encodes nested objects in bracket notation', async () => {
      await call({ method: 'post', body: { user: { name: 'a', roles: [{ id: 1 }] }, n: null } });
      expect(decodeURIComponent(last().body.toString())).toBe(
        'user[name]=a&user[roles][0][id]=1&n=',
      );
    });

    it('sends JSON when connection.headers sets a JSON content type', async () => {
      const body = { a: { b: [1, 2] }, c: null };
      await call(
        { method: 'post', body },
        { headers: { 'Content-Type': 'application/json; charset=utf-8' } },
      );
      expect(last().headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(last().body.toString())).toEqual(body);
    });

    it('uses connection.body when endpoint.body is absent, and endpoint.body when both are', async () => {
      await call({ method: 'put' }, { body: { source: 'connection' } });
      expect(last().body.toString()).toBe('source=connection');
      await call(
        { method: 'put', body: { source: 'endpoint' } },
        { body: { source: 'connection' } },
      );
      expect(last().body.toString()).toBe('source=endpoint');
    });

    it('sends a string body as it is', async () => {
      await call({ method: 'post', body: 'already=encoded&x=1' });
      expect(last().body.toString()).toBe('already=encoded&x=1');
    });

    it('sends params as the query for these methods too', async () => {
      await call({ path: '/p', method: 'post', params: [{ key: 'v', value: 1 }], body: { a: 1 } });
      expect(last().url).toBe('/p?v=1');
    });
  });

  it('rule 6: merges connection.headers into the request of every method', async () => {
    for (const method of ['get', 'head', 'post', 'put', 'patch', 'delete']) {
      await call({ method }, { headers: { 'X-Api-Key': 'k-123', Accept: 'application/xml' } });
      expect(last().method).toBe(method.toUpperCase());
      expect(last().headers['x-api-key']).toBe('k-123');
      expect(last().headers.accept).toBe('application/xml');
    }
  });

  it('accepts methods in any case and defaults to GET', async () => {
    await call({ method: 'PoSt', body: { a: 1 } });
    expect(last().method).toBe('POST');
    await call({ path: '/' });
    expect(last().method).toBe('GET');
  });

  it("forwards none of the caller's own headers", async () => {
    await call({}, {});
    await proxy.proxy(
      { host: upstream.url, endpoint: {} },
      { cookie: 'session=caller', 'x-caller': 'me', authorization: 'Bearer caller-token' },
    );
    expect(last().headers.cookie).toBeUndefined();
    expect(last().headers['x-caller']).toBeUndefined();
    expect(last().headers.authorization).toBeUndefined();
  });

  it('sends no Authorization when auth is omitted', async () => {
    await call({ method: 'get' });
    expect(last().headers.authorization).toBeUndefined();
  });

  describe('rule 7: the target answer is returned directly', () => {
    it.each([201, 204, 302, 404, 409, 500, 503])('passes status %i through', async (status) => {
      upstream.on('/status', (_req, res) => {
        res.statusCode = status;
        if (status === 302) res.setHeader('x-note', 'no location, not followed');
        res.end(status === 204 ? undefined : JSON.stringify({ from: 'target', status }));
      });
      const res = await call({ path: '/status' });
      expect(res.status).toBe(status);
      if (status !== 204) expect(await res.json()).toEqual({ from: 'target', status });
    });

    it('passes end-to-end headers through, repeated ones included, and drops hop-by-hop ones', async () => {
      upstream.on('/headers', (_req, res) => {
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.setHeader('x-custom', 'kept');
        res.setHeader('connection', 'keep-alive, x-hop');
        res.setHeader('x-hop', 'dropped');
        res.setHeader('keep-alive', 'timeout=77, max=9');
        res.setHeader('proxy-authenticate', 'Basic realm="x"');
        res.write('chunked ');
        res.end('body');
      });
      const res = await call({ path: '/headers' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
      expect(res.headers.get('x-custom')).toBe('kept');
      expect(res.headers.get('x-hop')).toBeNull();
      // The proxy's own connection to the caller has its own Keep-Alive, not the target's.
      expect(res.headers.get('keep-alive') ?? '').not.toContain('max=9');
      expect(res.headers.get('proxy-authenticate')).toBeNull();
      expect(res.headers.get('transfer-encoding')).toBeNull();
      expect(res.headers.get('content-length')).toBe('12');
      expect(await res.text()).toBe('chunked body');
    });

    it('returns binary bodies byte for byte', async () => {
      const png = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        randomBytes(256 * 1024),
      ]);
      upstream.on('/image.png', (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      });
      const res = await call({ path: '/image.png' });
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
    });

    it('returns a compressed body still compressed, with its Content-Encoding', async () => {
      const text = 'hello '.repeat(1000);
      const gzipped = gzipSync(text);
      upstream.on('/gz', (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
          .end(gzipped);
      });
      // fetch decompresses transparently: the text arriving intact proves the bytes did.
      const res = await call({ path: '/gz' }, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(await res.text()).toBe(text);
    });
  });

  it('rule 8: answers 500 when the forwarded request fails', async () => {
    const gone = await startUpstream();
    await gone.close();
    const res = await proxy.proxy({ host: gone.url, endpoint: { path: '/' } });
    expect(res.status).toBe(500);
    const error = await errorOf(res);
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('answers /health with the seed shape and serves the API reference', async () => {
    const health = await fetch(`${proxy.url}/health`);
    expect(await health.json()).toEqual({ status: 'OK', timestamp: expect.any(String) });
    const docs = await fetch(`${proxy.url}/api-docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    const document = (await (await fetch(`${proxy.url}/api-docs.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: object }>>;
    };
    const operation = document.paths['/proxy']?.post;
    expect(operation?.requestBody).toBeDefined();
    expect(Object.keys(operation?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '500', '502', '504']),
    );
  });
});
