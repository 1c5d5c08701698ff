/**
 * Read-only mode cannot be escaped: every attempt is refused (by the allow-list or by the
 * database's read-only transaction) and the data is untouched afterwards.
 */
import { createDatabase, startProxy, type Database, type Mode, type Proxy } from './harness';

const COMMON_ATTEMPTS = [
  'COMMIT; DELETE FROM items',
  'COMMIT',
  'ROLLBACK',
  'BEGIN; DELETE FROM items',
  'BEGIN',
  'START TRANSACTION',
  'SET TRANSACTION READ WRITE',
  'DELETE FROM items',
  "INSERT INTO items VALUES (99, 'intruder')",
  "UPDATE items SET name = 'changed'",
  'DROP TABLE items',
  'TRUNCATE items',
  'CREATE TABLE stolen AS SELECT * FROM items',
  'SELECT 1; DELETE FROM items',
  '/* a comment first */ DELETE FROM items',
  '-- a line comment first\nDELETE FROM items',
  'SELECT wipe()',
];

const ATTEMPTS: Record<'postgresql' | 'mysql', string[]> = {
  postgresql: [
    ...COMMON_ATTEMPTS,
    'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
    'SET default_transaction_read_only = off',
    'SET transaction_read_only = off',
    'RESET ALL',
    'DISCARD ALL',
    'WITH gone AS (DELETE FROM items RETURNING *) SELECT * FROM gone',
    'SELECT * INTO stolen FROM items',
    'EXPLAIN ANALYZE DELETE FROM items',
    "WITH flip AS (SELECT set_config('transaction_read_only', 'off', true)) DELETE FROM items",
    "SELECT set_config('transaction_read_only', 'off', false), wipe()",
    'DO $$ BEGIN DELETE FROM items; END $$',
    'CALL wipe_procedure()',
    "COPY (SELECT 1) TO '/tmp/pelita-db-proxy-copy'",
    'PREPARE tx AS DELETE FROM items',
    '/* nested /* comment */ */ COMMIT',
  ],
  mysql: [
    ...COMMON_ATTEMPTS,
    'SET SESSION TRANSACTION READ WRITE',
    'SET autocommit = 1',
    'SET SESSION tx_read_only = 0',
    'CALL wipe_procedure()',
    "SELECT * FROM items INTO OUTFILE '/tmp/pelita-db-proxy-outfile'",
    "SELECT * FROM items INTO DUMPFILE '/tmp/pelita-db-proxy-dumpfile'",
    '/*!COMMIT*/',
    '/*!99999 SELECT 1 */ CALL wipe_procedure()',
    '# hash comment\nDELETE FROM items',
    'LOCK TABLES items WRITE',
    'HANDLER items OPEN',
    'RENAME TABLE items TO items_gone',
  ],
};

const SETUP: Record<'postgresql' | 'mysql', string[]> = {
  postgresql: [
    'CREATE TABLE items (id int PRIMARY KEY, name text)',
    "INSERT INTO items VALUES (1, 'one'), (2, 'two')",
    'CREATE FUNCTION wipe() RETURNS int LANGUAGE sql AS $$ DELETE FROM items RETURNING 1 $$',
    'CREATE PROCEDURE wipe_procedure() LANGUAGE plpgsql AS $$ BEGIN COMMIT; DELETE FROM items; END $$',
  ],
  mysql: [
    'CREATE TABLE items (id int PRIMARY KEY, name varchar(20))',
    "INSERT INTO items VALUES (1, 'one'), (2, 'two')",
    'CREATE FUNCTION wipe() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM items; RETURN 1; END',
    `CREATE PROCEDURE wipe_procedure() BEGIN
       COMMIT; SET SESSION TRANSACTION READ WRITE; SET autocommit = 1; DELETE FROM items;
     END`,
  ],
};

const usedPasswords: string[] = [];
let readOnlyProxy: Proxy;
let writableProxy: Proxy;

beforeAll(async () => {
  // One connection per target: every request reuses the connection the previous one left.
  readOnlyProxy = await startProxy({ READ_ONLY: 'true', POOL_MAX_PER_TARGET: '1' });
  writableProxy = await startProxy({ POOL_MAX_PER_TARGET: '1' });
});
afterAll(async () => {
  await readOnlyProxy.stop();
  await writableProxy.stop();
  for (const password of usedPasswords) {
    expect(readOnlyProxy.logs.text).not.toContain(password);
    expect(writableProxy.logs.text).not.toContain(password);
  }
});

describe.each<Mode>(['postgresql', 'mariadb', 'mysql'])('%s', (mode) => {
  const dialect = mode === 'postgresql' ? 'postgresql' : 'mysql';
  let db: Database;
  const rows = async () => db.admin('SELECT id, name FROM items ORDER BY id');
  const readOnlyHeaders = () => ({ ...db.headers, 'x-db-read-only': 'true' });

  beforeAll(async () => {
    db = await createDatabase('readonly', mode);
    usedPasswords.push(db.password);
    if (dialect === 'mysql') await db.admin('SET GLOBAL log_bin_trust_function_creators = 1');
    for (const sql of SETUP[dialect]) await db.admin(sql);
  });
  afterAll(() => db.drop());

  it('reads under READ_ONLY', async () => {
    const res = await readOnlyProxy.execute(db.headers, 'SELECT id, name FROM items ORDER BY id');
    expect(res.body).toEqual({
      result: [
        { id: 1, name: 'one' },
        { id: 2, name: 'two' },
      ],
    });
    const nested = await readOnlyProxy.execute(db.headers, '(SELECT COUNT(*) AS n FROM items)');
    expect(nested.body).toEqual({ result: [{ n: '2' }] });
  });

  it.each(ATTEMPTS[dialect])('refuses %j and changes nothing', async (sql) => {
    const before = await rows();
    for (const proxy of ['setting', 'header'] as const) {
      const res =
        proxy === 'setting'
          ? await readOnlyProxy.execute(db.headers, sql)
          : await writableProxy.execute(readOnlyHeaders(), sql);
      expect([400, 403]).toContain(res.status);
      expect(res.body).toEqual({ error: expect.any(String), code: expect.any(String) });
      // The next statement on the same connection still reads, and reads the same rows.
      const after = await readOnlyProxy.execute(db.headers, 'SELECT COUNT(*) AS n FROM items');
      expect(after.body).toEqual({ result: [{ n: '2' }] });
    }
    expect(await rows()).toEqual(before);
  });

  it('answers 403 read_only for a write, naming what is accepted', async () => {
    const res = await readOnlyProxy.execute(db.headers, 'DELETE FROM items');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('read_only');
    expect(res.body.error).toMatch(/only SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN/);
  });

  it('lets a request tighten but never loosen the READ_ONLY setting', async () => {
    const loosen = await readOnlyProxy.execute(
      { ...db.headers, 'x-db-read-only': 'false' },
      "INSERT INTO items VALUES (3, 'three')",
    );
    expect(loosen.status).toBe(403);
    expect(await rows()).toHaveLength(2);
  });

  it('leaves no read-only state behind for the next, writable request on the same connection', async () => {
    const read = await writableProxy.execute(readOnlyHeaders(), 'SELECT COUNT(*) AS n FROM items');
    expect(read.body).toEqual({ result: [{ n: '2' }] });
    const write = await writableProxy.execute(db.headers, "INSERT INTO items VALUES (3, 'three')");
    expect(write.body).toEqual({ result: [], rowCount: 1 });
    expect(await rows()).toHaveLength(3);
    await db.admin('DELETE FROM items WHERE id = 3');
  });
});
