/**
 * Pooled connections keep each request isolated: whatever one request leaves in its session
 * (settings, variables, temporary tables, an open transaction, locks, prepared statements), the
 * next request on the same connection does not see. One connection per target forces reuse.
 *
 * The reset is skipped after a request that provably changed nothing (SESSION_RESET
 * when-changed, the default). Most checks below therefore change the session from a statement
 * shaped like a harmless SELECT — through a function, before an error, with a warning — so that
 * a reset skipped wrongly fails them.
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

/** db_proxy_session_resets_total of one engine and kind. */
async function resets(engine: string, kind: 'full' | 'skipped'): Promise<number> {
  const { body } = await proxy.call('GET', '/metrics');
  const line = new RegExp(
    `db_proxy_session_resets_total\\{engine="${engine}",reset="${kind}"\\} (\\d+)`,
  ).exec(String(body));
  return Number(line?.[1] ?? 0);
}

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

  it('skips the reset after a statement that changed nothing, and only then', async () => {
    // A request's reset runs after its answer; with one connection the next request waits for
    // it, so the counters read after request N cover the resets of requests 1 to N-1.
    await rows(db.headers, 'SELECT 1 AS one');
    const full = await resets('postgresql', 'full');
    const skipped = await resets('postgresql', 'skipped');
    await rows(db.headers, 'SELECT count(*) AS n FROM marker');
    await rows(db.headers, 'SELECT 1 AS one');
    expect(await resets('postgresql', 'skipped')).toBe(skipped + 2);
    await rows(db.headers, "SELECT set_config('pelita.other', 'x', false)");
    await rows(db.headers, 'SELECT 1 AS one');
    expect(await resets('postgresql', 'skipped')).toBe(skipped + 3);
    expect(await resets('postgresql', 'full')).toBe(full + 1);
  });

  it('releases an advisory lock taken before the statement failed', async () => {
    const failed = await proxy.execute(
      db.headers,
      'SELECT CASE WHEN pg_advisory_lock(4243) IS NOT NULL THEN 1 / (random() * 0)::int END',
    );
    expect(failed.status).toBe(400);
    await rows(db.headers, 'SELECT 1 AS one');
    expect(
      await db.admin("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4243"),
    ).toEqual([]);
  });

  it('resets what a function called from a SELECT changed', async () => {
    await rows(
      db.headers,
      `CREATE FUNCTION leak_setting() RETURNS int LANGUAGE sql AS
       $$ SELECT length(set_config('pelita.fn', 'leaked', false)) $$`,
    );
    await rows(db.headers, 'SELECT leak_setting() AS n');
    const [setting] = await rows(db.headers, "SELECT current_setting('pelita.fn', true) AS v");
    expect(setting.v ?? '').toBe('');
  });

  it('drops a temp table made by SELECT INTO, cursors, LISTENs and sequence state', async () => {
    await rows(db.headers, 'SELECT 1 AS a INTO TEMP leak_into');
    expect((await proxy.execute(db.headers, 'SELECT * FROM leak_into')).status).toBe(400);
    await rows(db.headers, 'DECLARE leak_cursor CURSOR WITH HOLD FOR SELECT 1');
    expect((await proxy.execute(db.headers, 'FETCH leak_cursor')).status).toBe(400);
    await rows(db.headers, 'LISTEN pelita_leak');
    expect(await rows(db.headers, 'SELECT pg_listening_channels() AS c')).toEqual([]);
    await rows(db.headers, 'CREATE SEQUENCE leak_seq');
    await rows(db.headers, "SELECT nextval('leak_seq') AS n");
    expect((await proxy.execute(db.headers, "SELECT currval('leak_seq') AS n")).status).toBe(400);
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

  it('skips the reset after a statement that changed nothing, and only then', async () => {
    // A request's reset runs after its answer; with one connection the next request waits for
    // it, so the counters read after request N cover the resets of requests 1 to N-1.
    await rows(db.headers, 'SELECT 1 AS one');
    const full = await resets(mode, 'full');
    const skipped = await resets(mode, 'skipped');
    await rows(db.headers, 'SELECT count(*) AS n FROM marker');
    await rows(db.headers, 'SELECT 1 AS one');
    expect(await resets(mode, 'skipped')).toBe(skipped + 2);
    await rows(db.headers, "SELECT GET_LOCK('pelita-counted', 0) AS got");
    await rows(db.headers, 'SELECT 1 AS one');
    expect(await resets(mode, 'skipped')).toBe(skipped + 3);
    expect(await resets(mode, 'full')).toBe(full + 1);
  });

  it('releases a named lock taken before the statement failed', async () => {
    const failed = await proxy.execute(
      db.headers,
      "SELECT GET_LOCK('pelita-err', 0) + (SELECT a FROM (SELECT 1 a UNION ALL SELECT 2) t) AS x",
    );
    expect(failed.status).toBe(400);
    await rows(db.headers, 'SELECT 1 AS one');
    expect(await db.admin("SELECT IS_FREE_LOCK('pelita-err') AS free")).toEqual([{ free: 1 }]);
  });

  it('clears variables set by a SELECT or by a function it calls', async () => {
    await rows(db.headers, "SELECT @leak_assign := 'leaked' AS v");
    expect(await rows(db.headers, 'SELECT @leak_assign AS v')).toEqual([{ v: null }]);
    await rows(db.headers, "SELECT 'leaked' INTO @leak_into");
    expect(await rows(db.headers, 'SELECT @leak_into AS v')).toEqual([{ v: null }]);
    await db.admin(
      "CREATE FUNCTION leak_var() RETURNS INT BEGIN SET @leak_fn = 'leaked'; RETURN 1; END",
    );
    await rows(db.headers, 'SELECT leak_var() AS n');
    expect(await rows(db.headers, 'SELECT @leak_fn AS v')).toEqual([{ v: null }]);
  });

  it('drops prepared statements', async () => {
    await rows(db.headers, "PREPARE leak_prepared FROM 'SELECT 1'");
    expect((await proxy.execute(db.headers, 'EXECUTE leak_prepared')).status).toBe(400);
  });

  it("hides the previous statement's warnings and row count", async () => {
    await rows(db.headers, "SELECT CAST('pelita-warning' AS SIGNED) AS n");
    expect(await rows(db.headers, 'SHOW WARNINGS')).toEqual([]);
    // A neutral statement (its reset skipped), then a statement reading its row count.
    await rows(db.headers, 'SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3');
    const [found] = await rows(db.headers, 'SELECT FOUND_ROWS() AS n');
    expect(Number(found.n)).not.toBe(3);
  });

  it('does not keep a default database a statement switched to', async () => {
    await rows(db.headers, `USE ${db.headers['x-db-name']}_other`);
    expect(await rows(db.headers, 'SELECT DATABASE() AS db')).toEqual([
      { db: db.headers['x-db-name'] },
    ]);
  });
});
