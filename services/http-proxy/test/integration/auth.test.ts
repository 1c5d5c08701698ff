/**
 * The three auth types against a real upstream, the JWT login step and its failures, and the
 * proof that none of the credentials used reaches a log line.
 */
import { startUpstream, type RecordingUpstream } from './support/recording-upstream';
import {
  errorOf,
  expectNoSecretsIn,
  startProxy,
  type ProxyUnderTest,
} from './support/proxy-under-test';

const USER = 'api-user';
const PASSWORD = 'pa55-w0rd-Zq';
const BEARER = 'bearer-tok-9f8e7d';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhcGktdXNlciJ9.c2lnbmF0dXJl';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

describe('authentication to the target', () => {
  let upstream: RecordingUpstream;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy({ ALLOWED_TARGETS: '127.0.0.0/8' });
    upstream.on('/auth/login', (_req, res, recorded) => {
      const sent = JSON.parse(recorded.body.toString()) as { user?: string; password?: string };
      const ok = sent.user === USER && sent.password === PASSWORD;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { token: JWT, expiresIn: 3600 } : { error: 'bad credentials' }));
    });
    upstream.on('/auth/login-without-token', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"access":"elsewhere"}');
    });
    upstream.on('/auth/login-html', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    });
  });
  afterAll(async () => {
    expectNoSecretsIn(proxy.logs, [PASSWORD, BEARER, JWT, BASIC]);
    await proxy.stop();
    await upstream.close();
  });
  beforeEach(() => upstream.requests.splice(0));

  const call = (auth: unknown, endpoint: Record<string, unknown> = {}, extra = {}) =>
    proxy.proxy({
      host: upstream.url,
      name: 'test target',
      auth,
      endpoint: { path: '/data', method: 'get', ...endpoint },
      ...extra,
    });
  const toData = () => upstream.requests.filter((r) => r.url.startsWith('/data'));

  it('basic: sends Authorization: Basic base64(user:password)', async () => {
    const res = await call({ type: 'basic', user: USER, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(toData()[0]?.headers.authorization).toBe(`Basic ${BASIC}`);
  });

  it('bearer: sends Authorization: Bearer <token>, on every method', async () => {
    for (const method of ['get', 'head', 'post', 'delete']) {
      await call({ type: 'bearer', token: BEARER }, { method, body: { a: 1 } });
    }
    expect(toData().map((r) => [r.method, r.headers.authorization])).toEqual([
      ['GET', `Bearer ${BEARER}`],
      ['HEAD', `Bearer ${BEARER}`],
      ['POST', `Bearer ${BEARER}`],
      ['DELETE', `Bearer ${BEARER}`],
    ]);
  });

  it('the described auth wins over an Authorization among connection.headers', async () => {
    await call({ type: 'bearer', token: BEARER }, {}, { headers: { Authorization: 'Other x' } });
    expect(toData()[0]?.headers.authorization).toBe(`Bearer ${BEARER}`);
  });

  it('jwt: logs in with JSON {user, password}, then sends the token as a bearer', async () => {
    const res = await call(
      { type: 'jwt', user: USER, password: PASSWORD, loginPath: '/auth/login' },
      { method: 'post', body: { q: 1 } },
      { headers: { 'X-Api-Key': 'key-1', 'Content-Type': 'application/x-www-form-urlencoded' } },
    );
    expect(res.status).toBe(200);
    const [login, data] = upstream.requests;
    expect(login?.method).toBe('POST');
    expect(login?.url).toBe('/auth/login');
    expect(login?.headers['content-type']).toBe('application/json');
    expect(login?.headers['x-api-key']).toBe('key-1');
    expect(login?.headers.authorization).toBeUndefined();
    expect(JSON.parse(login?.body.toString() ?? '')).toEqual({ user: USER, password: PASSWORD });
    expect(data?.url).toBe('/data');
    expect(data?.headers.authorization).toBe(`Bearer ${JWT}`);
    expect(data?.body.toString()).toBe('q=1');
  });

  it('jwt: answers 500 login_failed when the login is refused, and sends nothing else', async () => {
    const res = await call({
      type: 'jwt',
      user: USER,
      password: 'wrong',
      loginPath: '/auth/login',
    });
    expect(res.status).toBe(500);
    const error = await errorOf(res);
    expect(error).toEqual({
      code: 'login_failed',
      message: 'JWT login step failed: the login endpoint answered 401',
    });
    expect(toData()).toHaveLength(0);
  });

  it.each([
    ['/auth/login-without-token', 'the login answer has no string `token`'],
    ['/auth/login-html', 'the login answer is not JSON'],
  ])('jwt: answers 500 when the login answer (%s) has no token', async (loginPath, reason) => {
    const res = await call({ type: 'jwt', user: USER, password: PASSWORD, loginPath });
    expect(res.status).toBe(500);
    expect(await errorOf(res)).toEqual({
      code: 'login_failed',
      message: `JWT login step failed: ${reason}`,
    });
    expect(toData()).toHaveLength(0);
  });

  it('jwt: answers 500 when the login endpoint cannot be reached', async () => {
    const gone = await startUpstream();
    await gone.close();
    const res = await proxy.proxy({
      host: gone.url,
      auth: { type: 'jwt', user: USER, password: PASSWORD, loginPath: '/auth/login' },
      endpoint: { path: '/data' },
    });
    expect(res.status).toBe(500);
    const error = await errorOf(res);
    expect(error.code).toBe('login_failed');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it.each([
    ['auth.password', { type: 'basic', user: USER }],
    ['auth.token', { type: 'bearer' }],
    ['auth.loginPath', { type: 'jwt', user: USER, password: PASSWORD }],
    ['auth.type', { type: 'oauth2' }],
  ])('answers 400 for an auth description without a valid %s', async (field, auth) => {
    const res = await call(auth);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain(field);
    expect(upstream.requests).toHaveLength(0);
  });

  it('keeps credentials out of error answers', async () => {
    const res = await call({
      type: 'jwt',
      user: USER,
      password: PASSWORD,
      loginPath: '/auth/login-html',
    });
    expect(JSON.stringify(await res.json())).not.toContain(PASSWORD);
  });
});
