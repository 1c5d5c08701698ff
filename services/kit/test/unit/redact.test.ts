import { isSensitiveKey, redact, redactString, REDACTED } from '../../src/redact';

describe('redact', () => {
  it('replaces credential-bearing keys at any depth, in objects and arrays', () => {
    const input = {
      headers: { authorization: 'Bearer abc', 'x-db-password': 'pw', accept: 'json' },
      connection: { auth: { type: 'basic', user: 'ann', password: 'deep-secret' } },
      list: [{ client_secret: 'cs' }, { api_key: 'k' }, { apiKey: 'k2' }],
      a: { b: { c: { d: { e: { refresh_token: 'rt', Cookie: 'sid=1' } } } } },
    };
    expect(redact(input)).toEqual({
      headers: { authorization: REDACTED, 'x-db-password': REDACTED, accept: 'json' },
      connection: { auth: { type: 'basic', user: 'ann', password: REDACTED } },
      list: [{ client_secret: REDACTED }, { api_key: REDACTED }, { apiKey: REDACTED }],
      a: { b: { c: { d: { e: { refresh_token: REDACTED, Cookie: REDACTED } } } } },
    });
  });

  it('keeps numeric counters under token-like names and leaves the input untouched', () => {
    const input = { summary_tokens: 120, password: 'x' };
    expect(redact(input)).toEqual({ summary_tokens: 120, password: REDACTED });
    expect(input.password).toBe('x');
  });

  it('redacts credentials inside strings', () => {
    expect(redactString('connect postgres://app:s3cret@db:5432/x failed')).toBe(
      `connect postgres://app:${REDACTED}@db:5432/x failed`,
    );
    expect(redactString('sent Authorization: Bearer eyJhbGciOi.abc.def')).toBe(
      `sent Authorization: Bearer ${REDACTED}`,
    );
    expect(redactString('/reset-password?token=abc123&lang=en')).toBe(
      `/reset-password?token=${REDACTED}&lang=en`,
    );
  });

  it('turns errors into plain objects with redacted message and cause', () => {
    const err = new Error('login to https://u:pw@api.example.com failed', {
      cause: { password: 'p' },
    });
    const out = redact({ err }) as { err: Record<string, unknown> };
    expect(out.err.message).toBe(`login to https://u:${REDACTED}@api.example.com failed`);
    expect(out.err.type).toBe('Error');
    expect(out.err.cause).toEqual({ password: REDACTED });
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(redact(a)).toEqual({ name: 'a', self: '[Circular]' });
  });

  it('writes an object met twice outside a cycle both times', () => {
    const shared = { host: 'db', password: 'pw' };
    expect(redact({ primary: shared, replica: shared })).toEqual({
      primary: { host: 'db', password: REDACTED },
      replica: { host: 'db', password: REDACTED },
    });
  });

  it('returns what needs no change as it is, and copies only the changed branches', () => {
    const clean = { req: { method: 'POST', url: '/proxy' }, res: { statusCode: 200 }, ids: [1, 2] };
    expect(redact(clean)).toBe(clean);
    const mixed = { req: clean.req, auth: { token: 't' } };
    const out = redact(mixed) as typeof mixed;
    expect(out).not.toBe(mixed);
    expect(out.req).toBe(clean.req);
    expect(out.auth).toEqual({ token: REDACTED });
    expect(mixed.auth.token).toBe('t');
  });

  it.each([
    'Authorization',
    'proxy-authorization',
    'x-db-password',
    'set-cookie',
    'X-Api-Key',
    'accessToken',
  ])('%s is sensitive', (key) => expect(isSensitiveKey(key)).toBe(true));

  it.each(['user', 'host', 'content-type', 'name'])('%s is not sensitive', (key) =>
    expect(isSensitiveKey(key)).toBe(false),
  );
});
