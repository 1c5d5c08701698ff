import { passThroughHeaders } from '../../src/forward/response-headers';

describe('passThroughHeaders', () => {
  it('drops hop-by-hop headers, those the Connection header lists, and Content-Length', () => {
    const kept = passThroughHeaders({
      'content-type': ['image/png'],
      'set-cookie': ['a=1', 'b=2'],
      connection: ['keep-alive, X-Hop'],
      'keep-alive': ['timeout=5'],
      'transfer-encoding': ['chunked'],
      'x-hop': ['1'],
      'proxy-authenticate': ['Basic'],
      upgrade: ['h2c'],
      trailer: ['x-checksum'],
      'content-length': ['10'],
      'content-encoding': ['gzip'],
      'x-custom': ['yes'],
    });
    expect(Object.fromEntries(kept)).toEqual({
      'content-type': ['image/png'],
      'set-cookie': ['a=1', 'b=2'],
      'content-encoding': ['gzip'],
      'x-custom': ['yes'],
    });
  });
});
