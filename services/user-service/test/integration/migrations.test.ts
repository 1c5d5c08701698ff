/**
 * Migrations and the first admin on a real PostgreSQL: replicas starting together apply each file
 * once, connected directly and through PgBouncer in transaction mode (where each statement may
 * reach another server connection, so the start-up lock has to be the transaction's).
 */
import { createLogger, migrate, withStartupLock } from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import pg from 'pg';
import { MIGRATIONS_DIR, STARTUP_LOCK } from '../../src/service';
import { ensureFirstAdmin } from '../../src/users/first-admin';
import { createTestDatabase, throughPgBouncer, type TestDatabase } from './support/database';

const ALL = [
  '001_initial',
  '002_builtin_roles',
  '003_role_shortcuts',
  '004_profile_photos',
  '005_core_backend_grants',
  '006_self_service',
  '007_policy_sync_outbox',
  '008_email_verification',
  '009_policy_sync_outbox_traceparent',
];

describe.each([
  ['directly', false],
  ['through PgBouncer', true],
])('migrations and the first admin, connected %s', (_, pooled) => {
  let database: TestDatabase;
  const pools: pg.Pool[] = [];
  const logger = createLogger({ name: 'migrations-test', level: 'silent' });
  const passwords = testPasswords();
  const admin = { email: 'root@pelita.test', password: 'root-pw-123', username: 'root' };

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = pooled ? throughPgBouncer(database.url) : database.url;
    for (let i = 0; i < 3; i++) pools.push(new pg.Pool({ connectionString: url }));
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await database?.drop();
  });

  it('applies every file once when three replicas start at the same moment', async () => {
    const results = await Promise.all(
      pools.map((pool) =>
        withStartupLock(pool, STARTUP_LOCK, async (client) => ({
          applied: await migrate(client, MIGRATIONS_DIR),
          created: await ensureFirstAdmin(client, admin, logger, passwords),
        })),
      ),
    );
    const applied = results.flatMap((result) => result.applied);
    expect(applied).toEqual(ALL);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    const pool = pools[0]!;
    const versions = await pool.query<{ version: string }>(
      'select version from schema_migrations order by version',
    );
    expect(versions.rows.map((row) => row.version)).toEqual(ALL);
    const users = await pool.query(
      `select u.username, r.name as role, r.level from users u join roles r on r.id = u.role_id`,
    );
    expect(users.rows).toEqual([{ username: 'root', role: 'admin', level: 1 }]);
    const locks = await pool.query(`select 1 from pg_locks where locktype = 'advisory'
      and database = (select oid from pg_database where datname = current_database())`);
    expect(locks.rowCount).toBe(0);
  });

  it('does nothing on a second start', async () => {
    const again = await withStartupLock(pools[1]!, STARTUP_LOCK, async (client) => ({
      applied: await migrate(client, MIGRATIONS_DIR),
      created: await ensureFirstAdmin(client, admin, logger, passwords),
    }));
    expect(again).toEqual({ applied: [], created: false });
  });

  it('grants the admin role every method on every path through the built-in feature', async () => {
    const { rows } = await pools[0]!.query(
      `select s.method, s.path, p.status from policies p
       join roles r on r.id = p.role_id join sub_features s on s.id = p.sub_feature_id
       where r.name = 'admin' order by s.method`,
    );
    expect(rows).toEqual(
      ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'].map((method) => ({
        method,
        path: '**',
        status: true,
      })),
    );
  });
});
