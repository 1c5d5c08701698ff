/**
 * Time limits, row cap, the database-host allowlist and the per-target pool bound, on the real
 * servers.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { createDatabase, startProxy, type Database, type Mode, type Proxy } from './harness';

const usedPasswords: string[] = [];
const databases = new Map<Mode, Database>();
const db = (mode: Mode) => databases.get(mode) as Database;

beforeAll(async () => {
  for (const mode of ['postgresql', 'mariadb', 'mysql'] as const) {
    const database = await createDatabase('limits', mode);
    usedPasswords.push(database.password);
    databases.set(mode, database);
  }
});
afterAll(async () => {
  for (const database of databases.values()) await database.drop();
});

/** Proxies started in a test, stopped (and their logs checked) after the file. */
const proxies: Proxy[] = [];
async function proxyWith(env: Record<string, string>): Promise<Proxy> {
  const proxy = await startProxy(env);
  proxies.push(proxy);
  return proxy;
}
afterAll(async () => {
  for (const proxy of proxies) {
    await proxy.stop();
    for (const password of usedPasswords) expect(proxy.logs.text).not.toContain(password);
  }
});

describe('statement time-out', () => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await proxyWith({ STATEMENT_TIMEOUT_MS: '500' });
  });

  it.each<[Mode, string]>([
    ['postgresql', 'SELECT pg_sleep(5)'],
    ['mariadb', 'SELECT SLEEP(5)'],
    ['mysql', 'SELECT SLEEP(5)'],
  ])('%s: %s answers 504 when the server stops it', async (mode, sql) => {
    const started = Date.now();
    const res = await proxy.execute(db(mode).headers, sql);
    expect(res.status).toBe(504);
    expect(res.body.code).toBe('statement_timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    // The connection is usable again (reset, or replaced).
    expect((await proxy.execute(db(mode).headers, 'SELECT 1 AS one')).body).toEqual({
      result: [{ one: 1 }],
    });
  });

  it('stops a statement that bypasses the server limit with the client-side deadline', async () => {
    const started = Date.now();
    const res = await proxy.execute(
      db('mariadb').headers,
      'SET STATEMENT max_statement_time = 0 FOR SELECT SLEEP(8) AS slept',
    );
    expect(res.status).toBe(504);
    expect(res.body.code).toBe('statement_timeout');
    expect(Date.now() - started).toBeLessThan(4000);
    // KILL QUERY from a second connection ends it on the server too.
    const user = db('mariadb').headers['x-db-user'];
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const running = await db('mariadb').admin(
        `SELECT ID FROM information_schema.PROCESSLIST WHERE USER = '${user}' AND INFO LIKE '%SLEEP(8)%'`,
      );
      if (running.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the statement still runs on the server');
  });
});

describe('row cap', () => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await proxyWith({ MAX_ROWS: '5', POOL_MAX_PER_TARGET: '1' });
  });

  const SERIES: Record<Mode, (n: number) => string> = {
    postgresql: (n) => `SELECT n FROM generate_series(1, ${n}) AS n`,
    mariadb: (n) =>
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${n}) SELECT n FROM s`,
    mysql: (n) =>
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${n}) SELECT n FROM s`,
  };

  it.each<Mode>(['postgresql', 'mariadb', 'mysql'])(
    '%s: cuts at MAX_ROWS and says so; exactly MAX_ROWS is not cut',
    async (mode) => {
      const many = await proxy.execute(db(mode).headers, SERIES[mode](100_000));
      expect(many.status).toBe(200);
      expect(many.body.truncated).toBe(true);
      const numbers = (many.body.result as Array<{ n: unknown }>).map((row) => Number(row.n));
      expect(numbers).toEqual([1, 2, 3, 4, 5]);
      const exact = await proxy.execute(db(mode).headers, SERIES[mode](5));
      expect(exact.body.truncated).toBeUndefined();
      expect(exact.body.result).toHaveLength(5);
    },
  );

  it('applies the cap to the rows returned, not to the work done', async () => {
    const { headers } = db('postgresql');
    await proxy.execute(headers, 'CREATE TABLE capped (n int)');
    const res = await proxy.execute(
      headers,
      'INSERT INTO capped SELECT generate_series(1, 20) RETURNING n',
    );
    expect(res.body.result).toHaveLength(5);
    expect(res.body.truncated).toBe(true);
    expect((await proxy.execute(headers, 'SELECT COUNT(*) AS n FROM capped')).body).toEqual({
      result: [{ n: '20' }],
    });
  });
});

describe('connect time-out', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let port: string;
  let proxy: Proxy;

  beforeAll(async () => {
    // Accepts connections and never answers: neither a PostgreSQL nor a MySQL handshake.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = String((silent.address() as { port: number }).port);
    proxy = await proxyWith({ CONNECT_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it.each<Mode>(['postgresql', 'mariadb'])(
    '%s: 504 on /execute, 500 on /check-connection',
    async (mode) => {
      const headers = { ...db(mode).headers, 'x-db-port': port };
      const started = Date.now();
      const res = await proxy.execute(headers, 'SELECT 1');
      expect(res.status).toBe(504);
      expect(res.body.code).toBe('connect_timeout');
      expect(Date.now() - started).toBeLessThan(1500);
      const check = await proxy.call('GET', '/check-connection', headers);
      expect(check.status).toBe(500);
      expect(check.body).toEqual({
        error: expect.stringMatching(/within 300 ms/),
        code: 'connect_timeout',
      });
    },
  );
});

describe('ALLOWED_DB_HOSTS', () => {
  it('refuses hosts outside the list with 403 on every endpoint, without revealing the list', async () => {
    const proxy = await proxyWith({ ALLOWED_DB_HOSTS: '10.0.0.0/8, db.internal' });
    for (const mode of ['postgresql', 'mariadb'] as const) {
      const headers = db(mode).headers;
      for (const res of [
        await proxy.execute(headers, 'SELECT 1'),
        await proxy.call('GET', '/tables', headers),
        await proxy.call('GET', '/check-connection', headers),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('host_not_allowed');
        expect(res.body.error).toMatch(/127\.0\.0\.1 is not allowed/);
        expect(res.body.error).not.toContain('10.0.0.0');
      }
    }
  });

  it('checks the addresses a name resolves to', async () => {
    const proxy = await proxyWith({ ALLOWED_DB_HOSTS: '10.0.0.0/8' });
    const refused = await proxy.execute(
      { ...db('postgresql').headers, 'x-db-host': 'localhost' },
      'SELECT 1',
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/localhost \(/);

    const loopback = await proxyWith({ ALLOWED_DB_HOSTS: '127.0.0.0/8,::1' });
    const allowed = await loopback.execute(
      { ...db('postgresql').headers, 'x-db-host': 'localhost' },
      'SELECT 1 AS one',
    );
    expect(allowed.body).toEqual({ result: [{ one: 1 }] });
    const unresolvable = await loopback.execute(
      { ...db('postgresql').headers, 'x-db-host': 'no-such-host.invalid' },
      'SELECT 1',
    );
    expect(unresolvable.status).toBe(502);
    expect(unresolvable.body.code).toBe('unreachable');
  });

  it('trusts a host name listed as such, and only that name', async () => {
    const proxy = await proxyWith({ ALLOWED_DB_HOSTS: 'localhost' });
    const byName = await proxy.execute(
      { ...db('mariadb').headers, 'x-db-host': 'localhost' },
      'SELECT 1 AS one',
    );
    expect(byName.body).toEqual({ result: [{ one: 1 }] });
    const byAddress = await proxy.execute(db('mariadb').headers, 'SELECT 1');
    expect(byAddress.status).toBe(403);
  });

  it('refuses every host when it is empty, before any lookup, unless ALLOW_ANY_DB_HOST is set', async () => {
    const proxy = await proxyWith({ ALLOWED_DB_HOSTS: '' });
    for (const mode of ['postgresql', 'mariadb'] as const) {
      for (const host of ['127.0.0.1', 'localhost', 'no-such-host.invalid']) {
        const headers = { ...db(mode).headers, 'x-db-host': host };
        for (const res of [
          await proxy.execute(headers, 'SELECT 1'),
          await proxy.call('GET', '/tables', headers),
          await proxy.call('GET', '/check-connection', headers),
        ]) {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({
            error:
              'No database host is allowed: ALLOWED_DB_HOSTS is empty (list the database hosts, or set ALLOW_ANY_DB_HOST=true)',
            code: 'host_not_allowed',
          });
        }
      }
    }
    const open = await proxyWith({ ALLOWED_DB_HOSTS: '', ALLOW_ANY_DB_HOST: 'true' });
    const allowed = await open.execute(db('postgresql').headers, 'SELECT 1 AS one');
    expect(allowed.body).toEqual({ result: [{ one: 1 }] });
  });

  it('refuses a bad entry at start-up', async () => {
    await expect(startProxy({ ALLOWED_DB_HOSTS: '10.0.0.0/33' })).rejects.toThrow(
      /ALLOWED_DB_HOSTS.*not a valid CIDR/,
    );
  });
});

describe('pool bound', () => {
  it('answers 503 when every connection of the target stays busy past the connect time-out', async () => {
    const proxy = await proxyWith({ POOL_MAX_PER_TARGET: '1', CONNECT_TIMEOUT_MS: '300' });
    const { headers } = db('postgresql');
    const slow = proxy.execute(headers, 'SELECT pg_sleep(1)');
    // The slow statement holds the target's one connection once the server runs it.
    const user = headers['x-db-user'];
    for (;;) {
      const running = await db('postgresql').admin(
        `SELECT pid FROM pg_stat_activity WHERE usename = '${user}' AND query = 'SELECT pg_sleep(1)' AND state = 'active'`,
      );
      if (running.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const blocked = await proxy.execute(headers, 'SELECT 1');
    expect(blocked.status).toBe(503);
    expect(blocked.body.code).toBe('pool_exhausted');
    expect((await slow).status).toBe(200);
  });

  it('reuses connections between requests with the same parameters', async () => {
    const proxy = await proxyWith({ POOL_MAX_PER_TARGET: '1' });
    const pid = async () =>
      (await proxy.execute(db('postgresql').headers, 'SELECT pg_backend_pid() AS pid')).body
        .result[0].pid as number;
    const first = await pid();
    expect(await pid()).toBe(first);
    expect(await pid()).toBe(first);
  });
});
