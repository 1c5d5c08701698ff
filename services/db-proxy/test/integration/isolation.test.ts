/**
 * Pooled connections keep each request isolated: whatever one request leaves in its session
 * (settings, variables, temporary tables, an open transaction, locks, prepared statements), the
 * next request on the same connection does not see. One connection per target forces reuse.
 */
import { createDatabase, startProxy, type Database, type Mode, type Proxy } from './harness';

let proxy: Proxy;
const usedPasswords: string[] = [];

beforeAll(async () => {
  proxy = await startProxy({ POOL_MAX_PER_TARGET: '1', STATEMENT_TIMEOUT_MS: '20000' });
});
afterAll(async () => {
  await proxy.stop();
  for (const password of usedPasswords) expect(proxy.logs.text).not.toContain(password);
});

async function rows(headers: Record<string, string>, sql: string): Promise<any[]> {
  const res = await proxy.execute(headers, sql);
  if (res.status !== 200) throw new Error(`${sql} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result as any[];
}

describe('postgresql', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createDatabase('isolation', 'postgresql');
    usedPasswords.push(db.password);
    await db.admin('CREATE SCHEMA elsewhere');
    await db.admin('CREATE TABLE marker (n int)');
  });
  afterAll(() => db.drop());

  it('reuses the same server connection (so the checks below are meaningful)', async () => {
    const [first] = await rows(db.headers, 'SELECT pg_backend_pid() AS pid');
    const [second] = await rows(db.headers, 'SELECT pg_backend_pid() AS pid');
    expect(second.pid).toBe(first.pid);
  });

  it('resets settings: search_path, a custom variable, statement_timeout', async () => {
    await rows(db.headers, 'SET search_path = elsewhere');
    expect(await rows(db.headers, 'SHOW search_path')).toEqual([
      { search_path: '"$user", public' },
    ]);
    await rows(db.headers, "SELECT set_config('pelita.marker', 'leaked', false)");
    const [marker] = await rows(db.headers, "SELECT current_setting('pelita.marker', true) AS v");
    expect(marker.v ?? '').toBe('');
    await rows(db.headers, 'SET statement_timeout = 0');
    expect(await rows(db.headers, 'SHOW statement_timeout')).toEqual([
      { statement_timeout: '20s' },
    ]);
  });

  it('drops temporary tables and prepared statements', async () => {
    await rows(db.headers, 'CREATE TEMP TABLE leak_temp (a int)');
    expect((await proxy.execute(db.headers, 'SELECT * FROM leak_temp')).status).toBe(400);
    await rows(db.headers, 'PREPARE leak_prepared AS SELECT 1');
    expect((await proxy.execute(db.headers, 'EXECUTE leak_prepared')).status).toBe(400);
  });

  it('rolls back a transaction the caller opened', async () => {
    await rows(db.headers, 'BEGIN');
    await rows(db.headers, 'INSERT INTO marker VALUES (1)');
    // Committed on its own, not held in the caller's transaction.
    expect(await db.admin('SELECT n FROM marker')).toEqual([{ n: 1 }]);
    // VACUUM refuses to run inside a transaction block: it runs, so none is open.
    await rows(db.headers, 'BEGIN');
    expect((await proxy.execute(db.headers, 'VACUUM marker')).status).toBe(200);
  });

  it('releases session-level advisory locks', async () => {
    await rows(db.headers, 'SELECT pg_advisory_lock(4242)');
    await rows(db.headers, 'SELECT 1');
    expect(
      await db.admin("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242"),
    ).toEqual([]);
  });
});

describe.each<Mode>(['mariadb', 'mysql'])('%s', (mode) => {
  let db: Database;
  beforeAll(async () => {
    db = await createDatabase('isolation', mode);
    usedPasswords.push(db.password);
    await db.admin('CREATE TABLE marker (n int)');
    await db.admin(`CREATE DATABASE IF NOT EXISTS ${db.headers['x-db-name']}_other`);
    await db.admin(
      `GRANT ALL ON ${db.headers['x-db-name']}_other.* TO '${db.headers['x-db-user']}'@'%'`,
    );
    await db.admin(
      `GRANT ALL ON ${db.headers['x-db-name']}_other.* TO '${db.headers['x-db-user']}'@'127.0.0.1'`,
    );
  });
  afterAll(async () => {
    await db.admin(`DROP DATABASE ${db.headers['x-db-name']}_other`);
    await db.drop();
  });

  it('reuses the same server connection (so the checks below are meaningful)', async () => {
    const [first] = await rows(db.headers, 'SELECT CONNECTION_ID() AS id');
    const [second] = await rows(db.headers, 'SELECT CONNECTION_ID() AS id');
    expect(second.id).toBe(first.id);
  });

  it('clears user variables and resets session variables', async () => {
    await rows(db.headers, "SET @marker = 'leaked'");
    expect(await rows(db.headers, 'SELECT @marker AS v')).toEqual([{ v: null }]);
    await rows(db.headers, 'SET SESSION wait_timeout = 12345');
    const [timeout] = await rows(db.headers, 'SELECT @@SESSION.wait_timeout AS t');
    expect(Number(timeout.t)).not.toBe(12345);
    await rows(db.headers, "SET time_zone = '+05:00'");
    expect(await rows(db.headers, 'SELECT @@SESSION.time_zone AS tz')).toEqual([{ tz: '+00:00' }]);
  });

  it('drops temporary tables', async () => {
    await rows(db.headers, 'CREATE TEMPORARY TABLE leak_temp (a int)');
    expect((await proxy.execute(db.headers, 'SELECT * FROM leak_temp')).status).toBe(400);
  });

  it('rolls back a transaction the caller opened', async () => {
    await rows(db.headers, 'START TRANSACTION');
    await rows(db.headers, 'INSERT INTO marker VALUES (1)');
    expect(await db.admin('SELECT n FROM marker')).toEqual([{ n: 1 }]);
  });

  it('releases named locks', async () => {
    await rows(db.headers, "SELECT GET_LOCK('pelita-leak', 0) AS got");
    await rows(db.headers, 'SELECT 1');
    expect(await db.admin("SELECT IS_FREE_LOCK('pelita-leak') AS free")).toEqual([{ free: 1 }]);
  });

  it('does not keep a default database a statement switched to', async () => {
    await rows(db.headers, `USE ${db.headers['x-db-name']}_other`);
    expect(await rows(db.headers, 'SELECT DATABASE() AS db')).toEqual([
      { db: db.headers['x-db-name'] },
    ]);
  });
});
