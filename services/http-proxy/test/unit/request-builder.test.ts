import { Connection, type ConnectionDescription } from '../../src/forward/connection';
import { buildForwardedRequest, targetUrl } from '../../src/forward/request-builder';

const describe_ = (connection: Record<string, unknown>): ConnectionDescription =>
  Connection.parse({ host: 'http://api.example', endpoint: {}, ...connection });

describe('targetUrl', () => {
  it.each([
    ['http://h', '/a', 'http://h/a'],
    ['http://h/', '/a', 'http://h/a'],
    ['http://h/', 'a', 'http://h/a'],
    ['http://h', 'a', 'http://h/a'],
    ['http://h/v2', '/users', 'http://h/v2/users'],
    ['http://h/v2/', '/users', 'http://h/v2/users'],
    ['http://h', '', 'http://h/'],
    ['http://h', '?x=1', 'http://h/?x=1'],
  ])('%s + %s → %s', (host, path, expected) => {
    expect(targetUrl(host, path, [], 'endpoint.path').href).toBe(expected);
  });

  it('appends params to a query the path already has', () => {
    const url = targetUrl(
      'http://h',
      '/s?q=a%20b',
      [
        { key: 'page', value: '2' },
        { key: 'f', value: 'x y&z' },
      ],
      'endpoint.path',
    );
    expect(url.search).toBe('?q=a%20b&page=2&f=x+y%26z');
  });

  it('never lets the path change the host', () => {
    for (const path of [
      '@evil.example/x',
      '//evil.example/x',
      '.evil.example',
      ':1@evil.example',
    ]) {
      expect(targetUrl('http://api.example', path, [], 'endpoint.path').host).toBe('api.example');
    }
  });
});

describe('buildForwardedRequest', () => {
  it('sends GET without a body and with the params as query', () => {
    const request = buildForwardedRequest(
      describe_({
        endpoint: { path: '/x', method: 'get', params: [{ key: 'a', value: 1 }], body: { no: 1 } },
      }),
    );
    expect(request.method).toBe('GET');
    expect(request.url.href).toBe('http://api.example/x?a=1');
    expect(request.body).toBeUndefined();
    expect(request.headers['content-type']).toBeUndefined();
  });

  it('form-encodes POST bodies by default', () => {
    const request = buildForwardedRequest(
      describe_({ endpoint: { method: 'POST', body: { a: 'b c' } } }),
    );
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.body?.toString()).toBe('a=b+c');
  });

  it('sends JSON when the described headers ask for a JSON content type', () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/vnd.api+json',
    ]) {
      const request = buildForwardedRequest(
        describe_({
          headers: { 'Content-Type': type },
          endpoint: { method: 'put', body: { a: [1, { b: null }] } },
        }),
      );
      expect(request.headers['content-type']).toBe(type);
      expect(request.body?.toString()).toBe('{"a":[1,{"b":null}]}');
    }
  });

  it('falls back to connection.body and sends string bodies as they are', () => {
    const fallback = buildForwardedRequest(
      describe_({ body: { from: 'connection' }, endpoint: { method: 'patch' } }),
    );
    expect(fallback.body?.toString()).toBe('from=connection');
    const preferred = buildForwardedRequest(
      describe_({ body: { from: 'connection' }, endpoint: { method: 'delete', body: 'raw=1' } }),
    );
    expect(preferred.body?.toString()).toBe('raw=1');
  });

  it('sends no body and no content type when none is described', () => {
    const request = buildForwardedRequest(describe_({ endpoint: { method: 'post' } }));
    expect(request.body).toBeUndefined();
    expect(request.headers).toEqual({});
  });

  it('keeps described headers (lower-cased) but never hop-by-hop or framing ones', () => {
    const request = buildForwardedRequest(
      describe_({
        headers: {
          'X-Api-Key': 'k',
          Accept: 'text/csv',
          Connection: 'close',
          Host: 'evil.example',
          'Content-Length': '5',
          'Transfer-Encoding': 'chunked',
          Upgrade: 'websocket',
        },
      }),
    );
    expect(request.headers).toEqual({ 'x-api-key': 'k', accept: 'text/csv' });
  });
});

describe('the connection schema', () => {
  it('accepts methods in any case and defaults to GET', () => {
    expect(
      Connection.parse({ host: 'http://h', endpoint: { method: 'DeLeTe' } }).endpoint.method,
    ).toBe('DELETE');
    expect(Connection.parse({ host: 'http://h', endpoint: {} }).endpoint.method).toBe('GET');
    expect(Connection.safeParse({ host: 'http://h', endpoint: { method: 'trace' } }).success).toBe(
      false,
    );
  });

  it('refuses hosts that are not http(s) URLs or carry credentials', () => {
    for (const host of ['ftp://h', 'h.example', 'http://u:p@h', 'file:///etc/passwd']) {
      expect(Connection.safeParse({ host, endpoint: {} }).success).toBe(false);
    }
  });

  it('refuses header values that would split a header', () => {
    expect(
      Connection.safeParse({ host: 'http://h', endpoint: {}, headers: { a: 'x\r\nInjected: 1' } })
        .success,
    ).toBe(false);
    expect(
      Connection.safeParse({
        host: 'http://h',
        endpoint: {},
        auth: { type: 'bearer', token: 'x\nInjected: 1' },
      }).success,
    ).toBe(false);
  });
});
