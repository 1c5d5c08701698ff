/**
 * Databases and APIs of a workspace through the real proxies: a MariaDB database tested and its
 * tables listed through db-proxy, an API endpoint tried through http-proxy against a local
 * upstream with its credentials; secrets never answered nor stored in clear; access lists
 * on every path. A chat in a room pointed at both: the model writes SQL from the schema and
 * picks the endpoint (the LLM stand-in, deterministic), the proxies run them, the findings reach
 * the answer's prompt and the stored record names the sources.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createDbProxyService, settingsSchema as dbProxySettings } from '@pelita/db-proxy';
import { createHttpProxyService, settingsSchema as httpProxySettings } from '@pelita/http-proxy';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { requireEnv } from '@pelita/testenv';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';
import { readEvents } from './support/event-stream';

const { MARIADB_URL } = requireEnv('MARIADB_URL');

describe('databases and APIs', () => {
  let stack: CoreStack;
  let owner: TestUser;
  let editor: TestUser;
  let outsider: TestUser;
  let workspaceId: string;
  let dbProxy: RunningServer;
  let httpProxy: RunningServer;
  let stub: LlmStub;
  let upstream: ReturnType<typeof createServer>;
  let upstreamUrl: string;
  const seen: Array<{ url: string; headers: IncomingHttpHeaders; body: string }> = [];
  const run = randomBytes(3).toString('hex');
  const table = `orders_${run}`;
  // A database of this file's own: the schema the model is shown holds its table only, whatever
  // other test files create on the server meanwhile.
  const mariadb = new URL(MARIADB_URL);
  mariadb.pathname = `/core_sources_${run}`;

  beforeAll(async () => {
    const admin = await mysql.createConnection(MARIADB_URL);
    await admin.query(`create database ${mariadb.pathname.slice(1)}`);
    await admin.end();
    const seed = await mysql.createConnection(mariadb.toString());
    await seed.query(`create table ${table} (id int primary key, total decimal(10,2))`);
    await seed.query(`insert into ${table} values (1, 12.50), (2, 99.00)`);
    await seed.end();
    const quiet = createLogger({ name: 'proxies', level: 'silent' });
    dbProxy = await serveInProcess(
      createDbProxyService(
        loadConfig(dbProxySettings, {
          PROXY_SERVICE_TOKEN: 'db-token',
          ALLOWED_DB_HOSTS: '127.0.0.1,localhost',
        }),
        quiet,
      ),
      quiet,
    );
    httpProxy = await serveInProcess(
      createHttpProxyService(
        loadConfig(httpProxySettings, {
          ALLOWED_TARGETS: '127.0.0.1',
          PROXY_SERVICE_TOKEN: 'proxy-token',
        }),
        quiet,
      ),
      quiet,
    );
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, path: req.url }));
      });
    });
    upstream.listen(0, '127.0.0.1');
    await new Promise((resolve) => upstream.once('listening', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

    stub = await startLlmStub({ latencyMs: 0 });
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      URL_DB_PROXY: dbProxy.url,
      DB_PROXY_TOKEN: 'db-token',
      URL_HTTP_PROXY: httpProxy.url,
      HTTP_PROXY_TOKEN: 'proxy-token',
      DATABASE_CONNECT_TIMEOUT: '10000',
    });
    owner = await stack.admin();
    editor = await stack.user('editor');
    outsider = await stack.user('outsider');
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'Sources' }),
        201,
      )
    ).id;
    for (const user of [editor, outsider]) {
      await expectJson(
        stack.call('PUT', `/api/workspaces/${workspaceId}/users/${user.id}`, owner.token, {
          role: 'editor',
        }),
        200,
      );
    }
  });
  afterAll(async () => {
    await stack?.stop();
    await dbProxy?.stop();
    await httpProxy?.stop();
    await stub?.close();
    upstream?.close();
    const admin = await mysql.createConnection(MARIADB_URL);
    await admin.query(`drop database if exists ${mariadb.pathname.slice(1)}`);
    await admin.end();
  });

  const call = (method: string, path: string, user: TestUser, body?: unknown) =>
    stack.call(method, `/api/workspaces/${workspaceId}${path}`, user.token, body);

  async function storedRow(tableName: string, id: string): Promise<string> {
    const client = new pg.Client({ connectionString: stack.platform.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ row: string }>(
        `select row_to_json(t)::text as row from core_backend.${tableName} t where id = $1`,
        [id],
      );
      return rows[0]!.row;
    } finally {
      await client.end();
    }
  }

  let databaseId: string;

  it('adds a database, tests it and lists its tables through db-proxy; the password stays sealed', async () => {
    const created = await expectJson<
      { id: string; has_password: boolean } & Record<string, unknown>
    >(
      call('POST', '/databases', editor, {
        name: 'Shop',
        engine: 'mariadb',
        host: mariadb.hostname,
        port: Number(mariadb.port),
        database_name: mariadb.pathname.slice(1),
        username: decodeURIComponent(mariadb.username),
        password: decodeURIComponent(mariadb.password),
      }),
      201,
    );
    databaseId = created.id;
    expect(created.has_password).toBe(true);
    // (The test server's password is also its user and database name: checked by key.)
    expect(Object.keys(created).filter((key) => /password/.test(key))).toEqual(['has_password']);
    const row = JSON.parse(await storedRow('databases', created.id)) as Record<string, unknown>;
    expect(row.password_sealed).toMatch(/^v1:/);
    expect(Object.keys(row).filter((key) => /password/.test(key))).toEqual(['password_sealed']);

    await expectJson(call('POST', `/databases/${databaseId}/test`, editor), 200);
    const schema = await expectJson<{ tables: Record<string, Array<{ column_name: string }>> }>(
      call('GET', `/databases/${databaseId}/schema`, editor),
      200,
    );
    expect(schema.tables[table]?.map((c) => c.column_name)).toEqual(['id', 'total']);
  });

  it('says clearly when the database refuses the credentials or is unreachable', async () => {
    await expectJson(
      call('PATCH', `/databases/${databaseId}`, editor, { password: 'wrong-password' }),
      200,
    );
    const refused = await expectJson<{ error: { code: string } }>(
      call('POST', `/databases/${databaseId}/test`, editor),
      422,
    );
    expect(refused.error.code).toBe('database_auth_failed');
    await expectJson(
      call('PATCH', `/databases/${databaseId}`, editor, {
        password: decodeURIComponent(mariadb.password),
      }),
      200,
    );

    const closed = await expectJson<{ id: string }>(
      call('POST', '/databases', editor, {
        name: 'Nowhere',
        engine: 'postgresql',
        host: '127.0.0.1',
        port: 1,
        database_name: 'x',
        username: 'x',
        password: 'x',
      }),
      201,
    );
    const down = await expectJson<{ error: { code: string } }>(
      call('POST', `/databases/${closed.id}/test`, editor),
      502,
    );
    expect(down.error.code).toBe('database_unreachable');
  });

  it("reaches db-proxy only with the install's token: a wrong one is the install's fault (502)", async () => {
    const misconfigured = await startCoreStack({
      URL_DB_PROXY: dbProxy.url,
      DB_PROXY_TOKEN: 'not-the-db-token',
    });
    try {
      const boss = await misconfigured.admin();
      const ws = await expectJson<{ id: string }>(
        misconfigured.call('POST', '/api/workspaces', boss.token, { name: 'Wrong token' }),
        201,
      );
      const db = await expectJson<{ id: string }>(
        misconfigured.call('POST', `/api/workspaces/${ws.id}/databases`, boss.token, {
          name: 'Shop',
          engine: 'mariadb',
          host: mariadb.hostname,
          port: Number(mariadb.port),
          database_name: mariadb.pathname.slice(1),
          username: decodeURIComponent(mariadb.username),
          password: decodeURIComponent(mariadb.password),
        }),
        201,
      );
      const refused = await expectJson<{ error: { code: string } }>(
        misconfigured.call('POST', `/api/workspaces/${ws.id}/databases/${db.id}/test`, boss.token),
        502,
      );
      expect(refused.error.code).toBe('db_proxy_refused');
    } finally {
      await misconfigured.stop();
    }
  });

  it('tries an API endpoint through http-proxy with its bearer token and headers', async () => {
    const api = await expectJson<
      { id: string; auth: { has_secret: boolean } } & Record<string, unknown>
    >(
      call('POST', '/apis', editor, {
        name: 'Orders API',
        base_url: upstreamUrl,
        auth: { type: 'bearer', token: 'tok-secret-123' },
        headers: { 'x-api-key': 'key-secret-456' },
      }),
      201,
    );
    expect(api.auth.has_secret).toBe(true);
    const stored = await storedRow('apis', api.id);
    expect(stored).not.toContain('tok-secret-123');
    expect(stored).not.toContain('key-secret-456');
    expect(JSON.stringify(api)).not.toMatch(/secret-(123|456)/);

    const endpoint = await expectJson<{ id: string }>(
      call('POST', `/apis/${api.id}/endpoints`, editor, {
        name: 'order',
        method: 'get',
        path: '/orders',
        params: [{ name: 'id', in: 'query', type: 'number', required: true }],
      }),
      201,
    );
    const tried = await expectJson<{ status: number; body: string }>(
      call('POST', `/apis/${api.id}/endpoints/${endpoint.id}/try`, editor, { values: { id: 7 } }),
      200,
    );
    expect(tried.status).toBe(200);
    expect(JSON.parse(tried.body)).toEqual({ ok: true, path: '/orders?id=7' });
    const request = seen.at(-1)!;
    expect(request.headers.authorization).toBe('Bearer tok-secret-123');
    expect(request.headers['x-api-key']).toBe('key-secret-456');

    await expectJson(
      call('POST', `/apis/${api.id}/endpoints/${endpoint.id}/try`, editor, { values: {} }),
      400,
    );

    // Basic auth reaches the upstream too; a change without the password keeps it.
    await expectJson(
      call('PUT', `/apis/${api.id}`, editor, {
        name: 'Orders API',
        base_url: upstreamUrl,
        auth: { type: 'basic', user: 'shop', password: 'pw-789' },
      }),
      200,
    );
    await expectJson(
      call('PUT', `/apis/${api.id}`, editor, {
        name: 'Orders API v2',
        base_url: upstreamUrl,
        auth: { type: 'basic', user: 'shop' },
      }),
      200,
    );
    await expectJson(
      call('POST', `/apis/${api.id}/endpoints/${endpoint.id}/try`, editor, { values: { id: 8 } }),
      200,
    );
    expect(seen.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from('shop:pw-789').toString('base64')}`,
    );
  });

  it('answers a chat from the database (text-to-SQL) and the API (text-to-API) through the proxies', async () => {
    const apis = await expectJson<{ data: Array<{ id: string }> }>(
      call('GET', '/apis', editor),
      200,
    );
    const apiId = apis.data[0]!.id;
    const room = await expectJson<{ id: string }>(
      call('POST', '/rooms', editor, {
        name: 'Orders',
        knowledge_sources: [
          { type: 'database', topic_id: [databaseId] },
          { type: 'api', topic_id: [apiId] },
        ],
      }),
      201,
    );
    stub.resetStats();
    const seenBefore = seen.length;
    const question = `What is the total of each order in ${table}? And the order id=7?`;
    const events = await readEvents(
      await call('POST', `/rooms/${room.id}/messages`, editor, { chat: question }),
    );
    expect(events.at(-1)!.event).toBe('done');

    const calls = stub.stats().calls;
    const sqlCall = calls.find((c) => c.prompt.includes('<schema>'))!;
    expect(sqlCall.prompt).toContain(`${table}(id int, total decimal)`);
    const endpointCall = calls.find((c) => c.prompt.includes('<endpoints>'))!;
    expect(endpointCall.prompt).toContain('GET /orders');
    // Both planning answers were asked for with their JSON schema.
    expect([sqlCall.jsonSchema?.name, endpointCall.jsonSchema?.name]).toEqual([
      'sql_query',
      'endpoint_choice',
    ]);
    expect(sqlCall.jsonSchema?.strict).toBe(true);
    // db-proxy ran the model's SELECT; http-proxy called the chosen endpoint with the id.
    const answerCall = calls.at(-1)!;
    expect(answerCall.prompt).toContain(`query: SELECT * FROM ${table} LIMIT 20`);
    expect(answerCall.prompt).toMatch(/"total":"?99(\.00)?"?/);
    expect(answerCall.prompt).toContain('/orders?id=7');
    expect(seen.slice(seenBefore).map((r) => r.url)).toEqual(['/orders?id=7']);

    const stored = await expectJson<{
      data: Array<{ knowledge_source_detail: Array<{ type: string; topic_id: string[] }> }>;
    }>(call('GET', `/rooms/${room.id}/messages`, editor), 200);
    expect(stored.data[0]!.knowledge_source_detail).toEqual(
      expect.arrayContaining([
        { type: 'database', topic_id: [databaseId] },
        { type: 'api', topic_id: [apiId] },
      ]),
    );
  });

  it('keeps databases and APIs to those on their access lists', async () => {
    const apis = await expectJson<{ data: Array<{ id: string }> }>(
      call('GET', '/apis', editor),
      200,
    );
    const apiId = apis.data[0]!.id;
    expect(
      (await expectJson<{ total: number }>(call('GET', '/databases', outsider), 200)).total,
    ).toBe(0);
    expect((await expectJson<{ total: number }>(call('GET', '/apis', outsider), 200)).total).toBe(
      0,
    );
    for (const path of [
      `/databases/${databaseId}`,
      `/databases/${databaseId}/schema`,
      `/apis/${apiId}`,
      `/apis/${apiId}/endpoints`,
    ]) {
      await expectJson(call('GET', path, outsider), 404);
    }
    await expectJson(call('POST', `/databases/${databaseId}/test`, outsider), 404);
    await expectJson(
      call('PUT', `/databases/${databaseId}/access`, editor, {
        user_ids: [editor.id, outsider.id],
      }),
      200,
    );
    await expectJson(call('GET', `/databases/${databaseId}/schema`, outsider), 200);
  });
});
