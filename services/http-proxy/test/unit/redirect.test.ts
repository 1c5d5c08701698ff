import { HttpError } from '@pelita/kit';
import type { OutboundRequest } from '../../src/forward/messages';
import { redirectRequest } from '../../src/forward/redirect';

const post: OutboundRequest = {
  url: new URL('http://api.example/a/b'),
  method: 'POST',
  headers: {
    authorization: 'Bearer t',
    cookie: 's=1',
    'x-api-key': 'k',
    'content-type': 'application/json',
    accept: 'application/json',
  },
  body: Buffer.from('{}'),
};
const origin = 'http://api.example';

describe('redirectRequest', () => {
  it('ignores answers that are not followable redirects', () => {
    expect(redirectRequest(post, 200, '/x', origin)).toBeUndefined();
    expect(redirectRequest(post, 304, '/x', origin)).toBeUndefined();
    expect(redirectRequest(post, 302, undefined, origin)).toBeUndefined();
  });

  it('resolves relative locations and keeps method and body on 307/308', () => {
    const next = redirectRequest(post, 307, 'c?x=1', origin)!;
    expect(next.url.href).toBe('http://api.example/a/c?x=1');
    expect(next.method).toBe('POST');
    expect(next.body?.toString()).toBe('{}');
    expect(next.headers.authorization).toBe('Bearer t');
  });

  it('turns POST into a GET without body on 301/302/303, and anything but HEAD on 303', () => {
    for (const status of [301, 302, 303]) {
      const next = redirectRequest(post, status, '/done', origin)!;
      expect(next.method).toBe('GET');
      expect(next.body).toBeUndefined();
      expect(next.headers['content-type']).toBeUndefined();
    }
    expect(redirectRequest({ ...post, method: 'PUT' }, 302, '/x', origin)!.method).toBe('PUT');
    expect(redirectRequest({ ...post, method: 'PUT' }, 303, '/x', origin)!.method).toBe('GET');
    expect(redirectRequest({ ...post, method: 'HEAD' }, 303, '/x', origin)!.method).toBe('HEAD');
  });

  it('drops credentials when the redirect leaves the original origin', () => {
    for (const location of [
      'http://other.example/',
      'https://api.example/',
      'http://api.example:8080/',
    ]) {
      const next = redirectRequest(post, 307, location, origin)!;
      expect(next.headers).toEqual({
        'content-type': 'application/json',
        accept: 'application/json',
      });
    }
  });

  it('strips user info from the location and refuses non-HTTP schemes', () => {
    const next = redirectRequest(post, 302, 'http://u:p@api.example/x', origin)!;
    expect(next.url.href).toBe('http://api.example/x');
    expect(() => redirectRequest(post, 302, 'file:///etc/passwd', origin)).toThrow(HttpError);
    expect(() => redirectRequest(post, 302, 'http://[bad', origin)).toThrow(HttpError);
  });
});
