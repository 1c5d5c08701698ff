/**
 * Every endpoint on every mode (postgresql; mariadb; mysql pointing at the same MariaDB server):
 * results and their normalisation, statements without rows, and the typed errors.
 */
import { freePort } from '@pelita/testenv';
import { createDatabase, startProxy, type Database, type Mode, type Proxy } from './harness';

const SETUP: Record<'postgresql' | 'mysql', string[]> = {
  postgresql: [
    `CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, price numeric(12,2),
       created_at timestamptz, day date, payload bytea, doc jsonb, note json)`,
    `INSERT INTO items VALUES (9007199254740993, 'widget', 12.50, '2024-01-02T03:04:05.678Z',
       '2024-02-29', '\\x0102ff',
       '{"nested": {"big": 12345678901234567890, "list": [1, {"x": "y"}]}}', '{"a": [1, 2]}')`,
    `CREATE VIEW item_names AS SELECT name FROM items`,
    `CREATE SCHEMA other`,
    `CREATE TABLE other.items (elsewhere int)`,
  ],
  mysql: [
    `CREATE TABLE items (id BIGINT PRIMARY KEY, name VARCHAR(50) NOT NULL, price DECIMAL(12,2),
       created_at TIMESTAMP(3) NULL, day DATE, payload BLOB, doc JSON, note JSON)`,
    `INSERT INTO items VALUES (9007199254740993, 'widget', 12.50, '2024-01-02 03:04:05.678',
       '2024-02-29', x'0102ff',
       '{"nested": {"big": 12345678901234567890, "list": [1, {"x": "y"}]}}', '{"a": [1, 2]}')`,
    `CREATE VIEW item_names AS SELECT name FROM items`,
  ],
};

const ITEM = {
  id: '9007199254740993',
  name: 'widget',
  price: '12.50',
  created_at: '2024-01-02T03:04:05.678Z',
  day: '2024-02-29T00:00:00.000Z',
  payload: 'AQL/',
  doc: { nested: { big: '12345678901234567890', list: [1, { x: 'y' }] } },
  note: { a: [1, 2] },
};

const usedPasswords: string[] = ['Wrong-Pw-Never-Logged-1'];
let proxy: Proxy;

beforeAll(async () => {
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy.stop();
});

describe.each<Mode>(['postgresql', 'mariadb', 'mysql'])('%s', (mode) => {
  let db: Database;
  const dialect = mode === 'postgresql' ? 'postgresql' : 'mysql';

  beforeAll(async () => {
    db = await createDatabase('endpoints', mode);
    usedPasswords.push(db.password);
    for (const sql of SETUP[dialect]) await db.admin(sql);
    if (dialect === 'mysql') {
      // A table of the same name in another schema must not leak into /tables.
      await db.admin(`CREATE DATABASE IF NOT EXISTS ${db.headers['x-db-name']}_other`);
      await db.admin(
        `CREATE TABLE IF NOT EXISTS ${db.headers['x-db-name']}_other.items (elsewhere int)`,
      );
    }
  });
  afterAll(async () => {
    if (dialect === 'mysql') await db.admin(`DROP DATABASE ${db.headers['x-db-name']}_other`);
    await db.drop();
  });

  describe('GET /check-connection', () => {
    it('answers 200 { status } when a connection can be opened', async () => {
      const res = await proxy.call('GET', '/check-connection', db.headers);
      expect(res).toEqual({ status: 200, body: { status: 'connected' } });
    });

    it('answers 500 for a wrong password, without the password', async () => {
      const res = await proxy.call('GET', '/check-connection', {
        ...db.headers,
        'x-db-password': 'Wrong-Pw-Never-Logged-1',
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: expect.any(String), code: 'auth_failed' });
      expect(res.body.error).not.toContain('Wrong-Pw-Never-Logged-1');
    });

    it('answers 500 when the server cannot be reached', async () => {
      const port = String(await freePort());
      const res = await proxy.call('GET', '/check-connection', {
        ...db.headers,
        'x-db-port': port,
      });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('unreachable');
      expect(res.body.error).toMatch(/ECONNREFUSED/);
    });

    it('answers 500 for a database that does not exist', async () => {
      const res = await proxy.call('GET', '/check-connection', {
        ...db.headers,
        'x-db-name': 'no_such_database',
      });
      expect(res.status).toBe(500);
      expect(['unknown_database', 'permission_denied']).toContain(res.body.code);
    });
  });

  describe('GET /tables', () => {
    it('lists the tables and views of the schema with their columns, in order', async () => {
      const res = await proxy.call('GET', '/tables', db.headers);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.tables).sort()).toEqual(['item_names', 'items']);
      expect(
        (res.body.tables.items as Array<{ column_name: string }>).map((c) => c.column_name),
      ).toEqual(['id', 'name', 'price', 'created_at', 'day', 'payload', 'doc', 'note']);
      expect(res.body.tables.items[0]).toEqual({ column_name: 'id', data_type: 'bigint' });
      expect(res.body.tables.item_names).toEqual([
        { column_name: 'name', data_type: dialect === 'postgresql' ? 'text' : 'varchar' },
      ]);
    });

    it('answers 401 for a wrong password', async () => {
      const res = await proxy.call('GET', '/tables', {
        ...db.headers,
        'x-db-password': 'Wrong-Pw-Never-Logged-1',
      });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('auth_failed');
    });
  });

  describe('POST /execute', () => {
    it('returns rows with every value normalised', async () => {
      const res = await proxy.execute(db.headers, 'SELECT * FROM items');
      expect(res).toEqual({ status: 200, body: { result: [ITEM] } });
    });

    it('returns counts and sums exactly, as strings', async () => {
      const res = await proxy.execute(
        db.headers,
        'SELECT COUNT(*) AS n, SUM(price) AS total FROM items',
      );
      expect(res.body).toEqual({ result: [{ n: '1', total: '12.50' }] });
    });

    it('answers a SELECT without rows with an empty result and no rowCount', async () => {
      const res = await proxy.execute(db.headers, 'SELECT id FROM items WHERE id = 0');
      expect(res.body).toEqual({ result: [] });
    });

    it('answers DML with { result: [], rowCount }', async () => {
      await proxy.execute(db.headers, 'CREATE TABLE scratch (id int)');
      const inserted = await proxy.execute(db.headers, 'INSERT INTO scratch VALUES (1), (2), (3)');
      expect(inserted).toEqual({ status: 200, body: { result: [], rowCount: 3 } });
      const updated = await proxy.execute(
        db.headers,
        'UPDATE scratch SET id = id + 10 WHERE id < 3',
      );
      expect(updated.body).toEqual({ result: [], rowCount: 2 });
      const deleted = await proxy.execute(db.headers, 'DELETE FROM scratch');
      expect(deleted.body).toEqual({ result: [], rowCount: 3 });
    });

    it('answers DDL with { result: [], rowCount: 0 }', async () => {
      const res = await proxy.execute(db.headers, 'CREATE TABLE ddl_probe (id int)');
      expect(res).toEqual({ status: 200, body: { result: [], rowCount: 0 } });
      expect((await proxy.execute(db.headers, 'DROP TABLE ddl_probe')).body.rowCount).toBe(0);
    });

    it('answers 400 with the database message for bad SQL', async () => {
      const res = await proxy.execute(db.headers, 'SELEC 1');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_query');
      expect(res.body.error).toMatch(/syntax/i);
    });

    it('answers 400 for an unknown table', async () => {
      const res = await proxy.execute(db.headers, 'SELECT * FROM no_such_table');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/no_such_table/);
    });

    it('refuses two statements in one request, even outside read-only mode', async () => {
      const res = await proxy.execute(db.headers, 'SELECT 1; DELETE FROM items');
      expect(res.status).toBe(400);
      expect((await proxy.execute(db.headers, 'SELECT COUNT(*) AS n FROM items')).body).toEqual({
        result: [{ n: '1' }],
      });
    });

    it('answers 401 for a wrong password', async () => {
      const res = await proxy.execute(
        { ...db.headers, 'x-db-password': 'Wrong-Pw-Never-Logged-1' },
        'SELECT 1',
      );
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String), code: 'auth_failed' });
      expect(res.body.error).not.toContain('Wrong-Pw-Never-Logged-1');
    });

    it('answers 502 when the server cannot be reached', async () => {
      const port = String(await freePort());
      const res = await proxy.execute({ ...db.headers, 'x-db-port': port }, 'SELECT 1');
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('unreachable');
    });

    it('answers 400 when the query is missing', async () => {
      const res = await proxy.call('POST', '/execute', db.headers, {});
      expect(res).toEqual({
        status: 400,
        body: { error: 'Invalid request: query is required', code: 'invalid_request' },
      });
      const noBody = await proxy.call('POST', '/execute', db.headers);
      expect(noBody.body.error).toMatch(/query is required/);
    });
  });
});

describe('PostgreSQL-specific values', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createDatabase('pgvalues', 'postgresql');
    usedPasswords.push(db.password);
  });
  afterAll(() => db.drop());

  it('normalises inside arrays and keeps what JSON cannot carry as text', async () => {
    const res = await proxy.execute(
      db.headers,
      `SELECT ARRAY['2024-01-02'::date, NULL] AS days, ARRAY[1::int8, 9007199254740993] AS bigs,
         ARRAY['\\x01'::bytea] AS blobs, ARRAY['{"n": 12345678901234567890}'::jsonb] AS docs,
         'NaN'::float8 AS nan, 'infinity'::timestamp AS forever, '2024-01-02 03:04:05'::timestamp AS naive,
         '0044-03-15 BC'::date AS ides, 1.5::numeric AS exact, 42::int4 AS small`,
    );
    expect(res.body).toEqual({
      result: [
        {
          days: ['2024-01-02T00:00:00.000Z', null],
          bigs: ['1', '9007199254740993'],
          blobs: ['AQ=='],
          docs: [{ n: '12345678901234567890' }],
          nan: 'NaN',
          forever: 'infinity',
          naive: '2024-01-02T03:04:05.000Z',
          ides: '-000043-03-15T00:00:00.000Z',
          exact: '1.5',
          small: 42,
        },
      ],
    });
  });

  it('keeps a column called __proto__ as an ordinary column', async () => {
    const res = await proxy.execute(db.headers, `SELECT 1 AS "__proto__", 2 AS other`);
    const [row] = res.body.result as Array<Record<string, unknown>>;
    expect(Object.keys(row ?? {})).toEqual(['__proto__', 'other']);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
  });

  it('answers INSERT ... RETURNING with its rows', async () => {
    await proxy.execute(db.headers, 'CREATE TABLE returning_probe (id serial, name text)');
    const res = await proxy.execute(
      db.headers,
      "INSERT INTO returning_probe (name) VALUES ('a'), ('b') RETURNING id, name",
    );
    expect(res.body).toEqual({
      result: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
    });
  });

  it('answers 403 when the role lacks a privilege', async () => {
    await db.admin('CREATE TABLE secret_table (id int)');
    await db.admin(`REVOKE ALL ON secret_table FROM ${db.headers['x-db-user']}`);
    const res = await proxy.execute(db.headers, 'SELECT * FROM secret_table');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });
});

describe('service endpoints and request validation', () => {
  it('GET /health answers the seed shape without any x-db header', async () => {
    const res = await proxy.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'OK', timestamp: expect.any(String) });
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  });

  it('GET /api-docs serves the interactive reference, /api-docs.json the document', async () => {
    const page = await proxy.call('GET', '/api-docs/');
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('swagger');
    const doc = await proxy.call('GET', '/api-docs.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/health', '/check-connection', '/tables', '/execute']),
    );
    const parameters = doc.body.paths['/execute'].post.parameters as Array<{ name: string }>;
    const headers = parameters.map((parameter) => parameter.name);
    expect(headers).toEqual(
      expect.arrayContaining([
        'x-db-mode',
        'x-db-host',
        'x-db-port',
        'x-db-user',
        'x-db-password',
        'x-db-name',
      ]),
    );
  });

  it.each(['/check-connection', '/tables'])(
    '%s without headers answers 400 naming them all',
    async (path) => {
      const res = await proxy.call('GET', path);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      for (const name of [
        'x-db-mode',
        'x-db-host',
        'x-db-port',
        'x-db-user',
        'x-db-password',
        'x-db-name',
      ]) {
        expect(res.body.error).toContain(`missing ${name} header`);
      }
    },
  );

  it('names each invalid header', async () => {
    const res = await proxy.call(
      'POST',
      '/execute',
      {
        'x-db-mode': 'oracle',
        'x-db-host': '/var/run/postgresql',
        'x-db-port': '70000',
        'x-db-user': 'someone',
        'x-db-password': 'x',
        'x-db-name': 'db',
        'x-db-read-only': 'maybe',
      },
      { query: 'SELECT 1' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('x-db-mode header must be one of postgresql, mariadb, mysql');
    expect(res.body.error).toContain('x-db-host header must be a host name or an IP address');
    expect(res.body.error).toContain('x-db-port header must be a port number');
    expect(res.body.error).toContain('x-db-read-only header must be true or false');
  });

  it('answers unknown paths with the same error shape', async () => {
    const res = await proxy.call('GET', '/nowhere');
    expect(res).toEqual({
      status: 404,
      body: { error: 'No route for GET /nowhere', code: 'not_found' },
    });
  });

  it('exposes the statement counter and the pool gauges', async () => {
    const res = await fetch(`${proxy.url}/metrics`);
    const text = await res.text();
    expect(text).toMatch(/db_proxy_statements_total\{engine="postgresql",outcome="ok"\} \d+/);
    expect(text).toMatch(
      /db_proxy_statements_total\{engine="mariadb",outcome="invalid_query"\} \d+/,
    );
    // The kit's pool metrics, one pool per engine, every engine listed.
    expect(text).toMatch(/db_client_connection_count\{pool="mysql",state="idle"\} \d+/);
    for (const engine of ['postgresql', 'mariadb', 'mysql']) {
      expect(text).toMatch(
        new RegExp(`db_client_connection_count\\{pool="${engine}",state="used"\\} \\d+`),
      );
      expect(text).toMatch(
        new RegExp(`db_client_connection_pending_requests\\{pool="${engine}"\\} \\d+`),
      );
    }
    expect(text).toMatch(/db_proxy_pool_targets \d+/);
  });

  it('logged no password of the suite, right or wrong', () => {
    expect(proxy.logs.lines.length).toBeGreaterThan(50);
    expect(proxy.logs.text).toContain('executing statement');
    for (const password of usedPasswords) expect(proxy.logs.text).not.toContain(password);
  });
});
