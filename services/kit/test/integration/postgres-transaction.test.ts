// inTransaction against the PostgreSQL of `make testenv`: commit, rollback, and a client whose
// connection is lost mid-transaction (its backend terminated) discarded rather than lent again.
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { createLogger, inTransaction, loggingIdleErrors } from '../../src';

const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
const TABLE = `kit_transaction_${process.pid}`;

describe('inTransaction', () => {
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  let pool: pg.Pool;
  // What the pool was told on each release: an error means "destroy this client".
  let releases: Array<Error | undefined>;

  beforeAll(() => admin.query(`create table ${TABLE} (name text primary key)`));
  afterAll(async () => {
    await admin.query(`drop table if exists ${TABLE}`);
    await admin.end();
  });
  beforeEach(() => {
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
    releases = [];
    pool.on('release', (err: Error | undefined) => releases.push(err));
  });
  afterEach(() => pool.end());

  const names = async () =>
    (await admin.query<{ name: string }>(`select name from ${TABLE} order by name`)).rows.map(
      (row) => row.name,
    );
  const backendPid = async (client: pg.PoolClient) =>
    (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const terminate = (pid: number) => admin.query('select pg_terminate_backend($1)', [pid]);

  it('commits the work and returns its result, the client back in the pool', async () => {
    const result = await inTransaction(pool, async (client) => {
      await client.query(`insert into ${TABLE} (name) values ('committed')`);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await names()).toContain('committed');
    expect(releases).toEqual([undefined]);
    expect(pool.idleCount).toBe(1);
  });

  it('rolls back when the work throws, throws its error and keeps the client', async () => {
    const failure = new Error('work failed');
    await expect(
      inTransaction(pool, async (client) => {
        await client.query(`insert into ${TABLE} (name) values ('rolled-back')`);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await names()).not.toContain('rolled-back');
    expect(releases).toEqual([undefined]);
    expect(pool.idleCount).toBe(1);
  });

  it('rolls back a failed commit (a deferred constraint) and keeps the client', async () => {
    await expect(
      inTransaction(pool, async (client) => {
        await client.query(`insert into ${TABLE} (name) values ('twice')`);
        await client.query(
          `create temporary table deferred (id int primary key deferrable initially deferred)`,
        );
        await client.query('insert into deferred values (1), (1)');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await names()).not.toContain('twice');
    expect(releases).toEqual([undefined]);
  });

  it('discards a client whose rollback failed, throwing the error of the work', async () => {
    let firstPid = 0;
    const failure = new Error('work failed: its connection was lost');
    await expect(
      inTransaction(pool, async (client) => {
        await client.query(`insert into ${TABLE} (name) values ('lost')`);
        firstPid = await backendPid(client);
        await terminate(firstPid);
        // The connection is gone (whether the query is sent before or after the server's notice
        // arrives): this fails, and so does the rollback.
        await client.query('select 1').catch(() => {
          throw failure;
        });
      }),
    ).rejects.toBe(failure);

    expect(releases).toHaveLength(1);
    expect(releases[0]).toMatchObject({ message: expect.any(String) }); // an error, from any realm
    expect(pool.totalCount).toBe(0);
    expect(await names()).not.toContain('lost');
    // The next transaction gets a new connection, not the broken one.
    const nextPid = await inTransaction(pool, backendPid);
    expect(nextPid).not.toBe(firstPid);
  });

  it('survives a connection lost while the work awaits something else (no unhandled error)', async () => {
    const failure = new Error('work failed after its connection was lost');
    await expect(
      inTransaction(pool, async (client) => {
        const ended = new Promise((resolve) => client.once('end', resolve));
        await terminate(await backendPid(client));
        await ended; // the client emitted 'error' meanwhile, with no query running
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(releases[0]).toMatchObject({ message: expect.any(String) }); // an error, from any realm
    expect(pool.totalCount).toBe(0);
    expect(await inTransaction(pool, backendPid)).toEqual(expect.any(Number));
  });
});

describe('loggingIdleErrors', () => {
  it('logs an idle connection the server ends, and the pool goes on with a new one', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      name: 'pool',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const pool = loggingIdleErrors(new pg.Pool({ connectionString: POSTGRES_URL, max: 1 }), logger);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      const { pid } = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid'))
        .rows[0]!;
      expect(pool.idleCount).toBe(1);
      // Without a listener this 'error' of the pool's would end the process (the jest worker).
      const reported = new Promise((resolve) => pool.once('error', resolve));
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await reported;
      expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
        expect.objectContaining({
          level: 'warn',
          msg: 'an idle PostgreSQL connection was lost',
          err: 'terminating connection due to administrator command',
          code: '57P01',
        }),
      ]);
      expect(lines.join('')).not.toContain('"client"');
      const next = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!;
      expect(next.pid).not.toBe(pid);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});
