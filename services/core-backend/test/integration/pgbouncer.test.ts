/**
 * The core backend and the user service through PgBouncer in transaction mode (the test pooler of
 * `make testenv`), where consecutive statements of a client may reach different server
 * connections: migrations of two instances starting at once, the user service's start-up (its
 * migrations and first admin under the start-up lock), a login, users added under the seat lock,
 * and a chat history read through the open API. The core backend's schema comes from the pooler's
 * database entry for it (`pelita_pooled_core`, `connect_query`), as the README describes.
 */
import { createLogger } from '@pelita/kit';
import pg from 'pg';
import { Registry } from 'prom-client';
import { createChatRepository } from '../../src/chats/chat-repository';
import { createPool, migrateDatabase } from '../../src/db/database';
import {
  createTestDatabase,
  throughPgBouncer,
  type TestDatabase,
} from '../../../user-service/test/integration/support/database';
import { expectJson, startCoreStack, type CoreStack } from './support/core-stack';

// The database behind the pooler's entry `pelita_pooled_core` (tools/testenv pgbouncer.ts).
const POOLED_DATABASE = 'pelita_pooled';
const CORE_ENTRY = 'pelita_pooled_core';
const MIGRATIONS = [
  '001_workspaces',
  '002_access_lists',
  '003_documents',
  '004_chats',
  '005_workspace_config',
  '006_sources',
  '007_audios',
  '008_integrations_iframes',
  '009_documents_submitted_at',
  '010_documents_traceparent',
  '011_app_key_scope',
  '012_deletion_jobs',
  '013_api_endpoints_allow_write',
  '014_whatsapp_inbound',
];

describe('through PgBouncer in transaction mode', () => {
  const logger = createLogger({ name: 'core-backend', level: 'silent' });
  let database: TestDatabase;
  let coreUrl: string;
  let stack: CoreStack | undefined;
  let direct: pg.Pool;
  const pools: pg.Pool[] = [];

  /** A core backend's pool as the service builds it, through the pooler's entry for it. */
  const corePool = (url: string) => {
    const settings = {
      DATABASE_URL: url,
      DATABASE_SCHEMA: 'core_backend',
      DATABASE_POOL_MAX: 10,
      DATABASE_POOL_IDLE_MS: 10_000,
    };
    const pool = createPool(settings, { logger, registry: new Registry() });
    pools.push(pool);
    return pool;
  };
  const advisoryLocks = async () =>
    Number(
      (
        await direct.query<{ n: string }>(
          `select count(*) as n from pg_locks l join pg_database d on d.oid = l.database
           where l.locktype = 'advisory' and d.datname = $1`,
          [POOLED_DATABASE],
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    database = await createTestDatabase(POOLED_DATABASE);
    coreUrl = throughPgBouncer(database.url, CORE_ENTRY);
    direct = new pg.Pool({ connectionString: database.url, max: 1 });
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await direct?.end();
    // The platform drops the database.
    await (stack ? stack.stop() : database?.drop());
  });

  it('applies each migration once when two core backends start at the same moment', async () => {
    const applied = await Promise.all(
      [corePool(coreUrl), corePool(coreUrl)].map((pool) => migrateDatabase(pool, 'core_backend')),
    );
    expect(applied.flat()).toEqual(MIGRATIONS);
    expect(applied.map((files) => files.length).sort()).toEqual([0, MIGRATIONS.length]);
    const tables = await direct.query<{ schema: string }>(
      `select distinct table_schema as schema from information_schema.tables
       where table_name = 'workspaces'`,
    );
    expect(tables.rows).toEqual([{ schema: 'core_backend' }]);
    expect(await advisoryLocks()).toBe(0);
  });

  it('refuses to start where the pooler drops the schema it was given', async () => {
    // The pooler's catch-all entry: the startup options are ignored, nothing sets the schema.
    const plain = corePool(throughPgBouncer(database.url));
    await expect(migrateDatabase(plain, 'core_backend')).rejects.toThrow(
      /do not use schema core_backend/,
    );
  });

  it('starts both services, logs in, adds users under the seat lock and reads a chat history', async () => {
    stack = await startCoreStack({ DATABASE_URL: coreUrl }, {}, { database, pooled: true });
    const admin = await stack.admin();
    // Two seat-taking changes at once: each under the seat lock, none left held after.
    const [alice] = await Promise.all([stack.user('alice'), stack.user('bob')]);
    expect(await advisoryLocks()).toBe(0);

    const workspace = await expectJson<{ id: string }>(
      stack.call('POST', '/api/workspaces', admin.token, { name: 'Pooled' }),
      201,
    );
    await expectJson(
      stack.call('PUT', `/api/workspaces/${workspace.id}/users/${alice.id}`, admin.token, {
        role: 'viewer',
      }),
      200,
    );
    const { key } = await expectJson<{ key: string }>(
      stack.call('POST', `/api/workspaces/${workspace.id}/app-keys`, admin.token, { name: 'k' }),
      201,
    );
    // A session with two answered messages, written through the pooler as the service does.
    const chats = createChatRepository(corePool(coreUrl));
    const keyId = (
      await direct.query<{ id: string }>(
        'select id from core_backend.app_keys where workspace_id = $1',
        [workspace.id],
      )
    ).rows[0]!.id;
    const room = await chats.sessionRoom(workspace.id, 'pooled', keyId);
    for (const i of [0, 1]) {
      const message = await chats.addMessage(room, {
        chat: `question ${i}`,
        llm: 'pelita-stub',
        knowledgeSourceDetail: [],
      });
      await chats.finishMessage(message.id, { response: `answer ${i}`, status: 'complete' });
    }
    const history = await expectJson<{ data: { total: number; results: Array<{ chat: string }> } }>(
      stack.call(
        'GET',
        `/v1/api/open-api/workspaces/${workspace.id}/history`,
        undefined,
        undefined,
        { authorization: `Bearer ${key}`, 'x-session-id': 'pooled' },
      ),
      200,
    );
    expect(history.data.total).toBe(2);
    expect(history.data.results.map((r) => r.chat)).toEqual(['question 1', 'question 0']);
  });
});
