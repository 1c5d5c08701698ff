/**
 * A stored secret goes only where it was given for: moving a database, an API, a model or an
 * integration to another host (or port, or URL origin) needs its secret again in the same change
 * (400 `secret_required` otherwise), so someone who may edit it but never knew the secret cannot
 * send it to a server of their own. The database case is tried with a fake PostgreSQL that asks
 * for a cleartext password, through the real db-proxy, next to the real PostgreSQL.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { RunningServer } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import { DB_PROXY_TOKEN, HTTP_PROXY_TOKEN, startDbProxy, startHttpProxy } from './support/proxies';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

const { POSTGRES_URL } = requireEnv('POSTGRES_URL');

/** A PostgreSQL server as a thief runs it: asks every client for its password in clear. */
async function startPasswordCatcher() {
  const passwords: string[] = [];
  const server = createTcpServer((socket) => {
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          // SSLRequest (80877103) or GSSENCRequest: "no", then the startup message follows.
          if (code === 80877103 || code === 80877104) {
            socket.write('N');
            continue;
          }
          started = true;
          // AuthenticationCleartextPassword.
          socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
          continue;
        }
        if (buffer.length < 5) return;
        const length = buffer.readInt32BE(1);
        if (buffer.length < length + 1) return;
        if (buffer[0] === 0x70)
          passwords.push(buffer.subarray(5, length).toString().replace(/\0$/, ''));
        buffer = buffer.subarray(length + 1);
        socket.end();
        return;
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, passwords };
}

/** An HTTP server that records the credentials it is sent and answers what each caller expects. */
async function startRecorder(answer: (path: string) => unknown) {
  const seen: Array<{ path: string; authorization: string; apiKey: string }> = [];
  const server: Server = createHttpServer((req, res) => {
    seen.push({
      path: req.url ?? '',
      authorization: req.headers.authorization ?? '',
      apiKey: String(req.headers['x-api-key'] ?? ''),
    });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer(req.url ?? '')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const answers = (path: string) =>
  path.includes('/models')
    ? { object: 'list', data: [{ id: 'm', object: 'model' }] }
    : { display_phone_number: '+1 555', verified_name: 'Desk', ok: true };

describe('a stored secret follows no changed destination', () => {
  let stack: CoreStack;
  let dbProxy: RunningServer;
  let httpProxy: RunningServer;
  let catcher: Awaited<ReturnType<typeof startPasswordCatcher>>;
  let home: Awaited<ReturnType<typeof startRecorder>>;
  let elsewhere: Awaited<ReturnType<typeof startRecorder>>;
  let owner: TestUser;
  let workspaceId: string;
  const postgres = new URL(POSTGRES_URL);

  beforeAll(async () => {
    dbProxy = await startDbProxy();
    httpProxy = await startHttpProxy();
    catcher = await startPasswordCatcher();
    home = await startRecorder(answers);
    elsewhere = await startRecorder(answers);
    stack = await startCoreStack({
      URL_DB_PROXY: dbProxy.url,
      DB_PROXY_TOKEN,
      URL_HTTP_PROXY: httpProxy.url,
      HTTP_PROXY_TOKEN,
      DATABASE_CONNECT_TIMEOUT: '10000',
      WHATSAPP_TIMEOUT: '5000',
      ALLOWED_TARGETS: '127.0.0.1',
    });
    owner = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'Secrets' }),
        201,
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await dbProxy?.stop();
    await httpProxy?.stop();
    catcher?.server.close();
    home?.server.close();
    elsewhere?.server.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    stack.call(method, `/api/workspaces/${workspaceId}${path}`, owner.token, body);
  const refusedFor = async (res: Promise<Response>, field: string) => {
    const body = await expectJson<{ error: { code: string; message: string } }>(res, 400);
    expect(body.error.code).toBe('secret_required');
    expect(body.error.message).toContain(field);
  };

  it('keeps a database password from a new host or port unless it is given again', async () => {
    const password = decodeURIComponent(postgres.password);
    const db = await expectJson<{ id: string }>(
      call('POST', '/databases', {
        name: 'Real',
        engine: 'postgresql',
        host: postgres.hostname,
        port: Number(postgres.port || 5432),
        database_name: postgres.pathname.slice(1),
        username: decodeURIComponent(postgres.username),
        password,
      }),
      201,
    );
    await expectJson(call('POST', `/databases/${db.id}/test`), 200);

    await refusedFor(call('PATCH', `/databases/${db.id}`, { port: catcher.port }), 'password');
    await refusedFor(
      call('PATCH', `/databases/${db.id}`, { host: 'localhost', port: catcher.port }),
      'password',
    );
    // Nothing moved: the test still reaches the real server, the catcher heard nothing.
    await expectJson(call('POST', `/databases/${db.id}/test`), 200);
    expect(catcher.passwords).toEqual([]);

    // Changes that leave host and port alone keep the password (the database is on that server).
    await expectJson(call('PATCH', `/databases/${db.id}`, { name: 'Renamed' }), 200);
    await expectJson(
      call('PATCH', `/databases/${db.id}`, { database_name: postgres.pathname.slice(1) }),
      200,
    );

    // Given again, the move is the caller's own: only what they typed goes there.
    await expectJson(
      call('PATCH', `/databases/${db.id}`, { port: catcher.port, password: 'typed-for-it' }),
      200,
    );
    await call('POST', `/databases/${db.id}/test`);
    expect(catcher.passwords).toEqual(['typed-for-it']);
    expect(catcher.passwords).not.toContain(password);
  });

  it("keeps an API's token and headers from a new base URL unless they are given again", async () => {
    const api = await expectJson<{ id: string }>(
      call('POST', '/apis', {
        name: 'Orders',
        base_url: home.url,
        auth: { type: 'bearer', token: 'tok-home' },
        headers: { 'x-api-key': 'key-home' },
      }),
      201,
    );
    const endpoint = await expectJson<{ id: string }>(
      call('POST', `/apis/${api.id}/endpoints`, { name: 'list', method: 'get', path: '/orders' }),
      201,
    );
    await refusedFor(
      call('PUT', `/apis/${api.id}`, {
        name: 'Orders',
        base_url: elsewhere.url,
        auth: { type: 'bearer' },
        headers: { 'x-api-key': 'key-new' },
      }),
      'auth.token',
    );
    await refusedFor(
      call('PUT', `/apis/${api.id}`, {
        name: 'Orders',
        base_url: elsewhere.url,
        auth: { type: 'bearer', token: 'tok-new' },
      }),
      'headers',
    );
    // Another path on the same server is the same destination.
    await expectJson(
      call('PUT', `/apis/${api.id}`, {
        name: 'Orders',
        base_url: `${home.url}/v2`,
        auth: { type: 'bearer' },
      }),
      200,
    );
    await expectJson(call('POST', `/apis/${api.id}/endpoints/${endpoint.id}/try`, {}), 200);
    expect(elsewhere.seen).toEqual([]);
    expect(home.seen.at(-1)).toMatchObject({
      path: '/v2/orders',
      authorization: 'Bearer tok-home',
      apiKey: 'key-home',
    });

    await expectJson(
      call('PUT', `/apis/${api.id}`, {
        name: 'Orders',
        base_url: elsewhere.url,
        auth: { type: 'bearer', token: 'tok-new' },
        headers: { 'x-api-key': 'key-new' },
      }),
      200,
    );
    await expectJson(call('POST', `/apis/${api.id}/endpoints/${endpoint.id}/try`, {}), 200);
    expect(elsewhere.seen).toEqual([
      { path: '/orders', authorization: 'Bearer tok-new', apiKey: 'key-new' },
    ]);
  });

  it("keeps a model's API key from a new server unless it is given again", async () => {
    home.seen.length = 0;
    elsewhere.seen.length = 0;
    const model = await expectJson<{ id: string }>(
      call('POST', '/models', { name: 'Own', model: 'm', base_url: home.url, api_key: 'sk-home' }),
      201,
    );
    await refusedFor(call('PATCH', `/models/${model.id}`, { base_url: elsewhere.url }), 'api_key');
    // A change that names no server keeps the server, and the key with it.
    const renamed = await expectJson<{ base_url: string | null; has_api_key: boolean }>(
      call('PATCH', `/models/${model.id}`, { name: 'Own renamed', is_default: true }),
      200,
    );
    expect(renamed).toMatchObject({ base_url: home.url, has_api_key: true });
    await expectJson(call('POST', `/models/${model.id}/check`), 200);
    expect(elsewhere.seen).toEqual([]);
    expect(home.seen.map((s) => s.authorization)).toEqual(['Bearer sk-home']);

    // Removing the key, or giving a new one, moves it.
    await expectJson(
      call('PATCH', `/models/${model.id}`, { base_url: elsewhere.url, api_key: 'sk-new' }),
      200,
    );
    await expectJson(call('POST', `/models/${model.id}/check`), 200);
    expect(elsewhere.seen.map((s) => s.authorization)).toEqual(['Bearer sk-new']);
    await expectJson(
      call('PATCH', `/models/${model.id}`, { base_url: home.url, api_key: null }),
      200,
    );
  });

  it("keeps an integration's access token from a new bridge unless it is given again", async () => {
    home.seen.length = 0;
    elsewhere.seen.length = 0;
    const integration = await expectJson<{ id: string }>(
      call('POST', '/integrations', {
        name: 'Line',
        base_url: home.url,
        phone_number_id: '123',
        access_token: 'EAAG-home',
      }),
      201,
    );
    await refusedFor(
      call('PATCH', `/integrations/${integration.id}`, { base_url: elsewhere.url }),
      'access_token',
    );
    await expectJson(call('POST', `/integrations/${integration.id}/check`), 200);
    expect(elsewhere.seen).toEqual([]);
    expect(home.seen.map((s) => s.authorization)).toEqual(['Bearer EAAG-home']);
    // The number on the same bridge is no new destination.
    await expectJson(
      call('PATCH', `/integrations/${integration.id}`, { phone_number_id: '456' }),
      200,
    );
  });
});
