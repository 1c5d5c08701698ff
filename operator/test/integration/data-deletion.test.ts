/**
 * `deletionPolicy` against the real servers of make testenv (PostgreSQL, Redis, OpenSearch,
 * MinIO) and the real apiserver, with the operator as a process: an install's data is seeded on
 * the servers beside a second install's, the install deleted, and the servers listed.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Client as OpenSearch } from '@opensearch-project/opensearch';
import { tenantIndex } from '@pelita/kit';
import { freePort, requireEnv, startTcpLink, waitFor, type TcpLink } from '@pelita/testenv';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { PlatformInstallSpecInput } from '../../src/crd/platform-install';
import {
  apply,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  patchInstall,
  platformInstall,
  readInstall,
  startOperator,
  status,
  type OperatorProcess,
} from './support';

const env = requireEnv(
  'POSTGRES_URL',
  'REDIS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);
const cluster = connect();
const run = randomBytes(3).toString('hex');
const admin = new URL(env.POSTGRES_URL);
const redisPort = Number(new URL(env.REDIS_URL).port);
const redis = new Redis(env.REDIS_URL);
const opensearch = new OpenSearch({ node: env.OPENSEARCH_URL });
const s3 = new S3Client({
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  forcePathStyle: true,
  credentials: { accessKeyId: env.S3_ACCESS_KEY, secretAccessKey: env.S3_SECRET_KEY },
});
let namespace: string;
let operator: OperatorProcess;
let redisLink: TcpLink;
const databases: string[] = [];
const buckets: string[] = [];

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-data');
  await cluster.core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'deps' },
      stringData: {
        'pg-user': decodeURIComponent(admin.username),
        'pg-password': decodeURIComponent(admin.password),
        's3-access': env.S3_ACCESS_KEY,
        's3-secret': env.S3_SECRET_KEY,
      },
    },
  });
  redisLink = await startTcpLink(await freePort(), redisPort);
  operator = await startOperator({ kubeconfigPath: cluster.kubeconfigPath, namespace });
});

afterAll(async () => {
  const code = await operator?.stop();
  await deleteNamespace(cluster, namespace);
  await redisLink?.close();
  for (const database of databases) {
    await withPostgres('postgres', (c) => c.query(`drop database if exists ${database}`));
  }
  for (const bucket of buckets) await emptyBucket(bucket);
  // What the kept installs (Retain, shared) left on the shared servers.
  await opensearch.indices
    .delete({ index: `pelita-${namespace}-*`, expand_wildcards: 'all' })
    .catch(() => undefined);
  if (createdSharedKnowledge) {
    await opensearch.indices.delete({ index: SHARED_KNOWLEDGE }).catch(() => undefined);
  }
  const leftKeys = await redis.keys(`pelita:${namespace}/*`);
  if (leftKeys.length > 0) await redis.del(...leftKeys);
  redis.disconnect();
  await opensearch.close();
  s3.destroy();
  if (code !== 0) process.stderr.write(operator.logs().slice(-6000));
  expect(code).toBe(0);
});

async function withPostgres<T>(database: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(env.POSTGRES_URL);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function emptyBucket(bucket: string): Promise<void> {
  const keys = await objects(bucket);
  if (keys.length > 0) {
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: keys.map((Key) => ({ Key })) },
      }),
    );
  }
  await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
}

/** One install's servers: its own database and bucket; Redis and OpenSearch shared by all. */
interface Tenant {
  name: string;
  database: string;
  bucket: string;
  /** Redis port: the real one, or a link that can be cut. */
  redisPort?: number;
  /** Its own indexes, as installs before the shared ones had (seeded below), unless `shared`. */
  layout?: 'shared' | 'perInstall';
}

function tenant(name: string, shares?: Tenant): Tenant {
  return {
    name,
    database: shares?.database ?? `op_data_${run}_${name}`,
    bucket: shares?.bucket ?? `op-data-${run}-${name}`,
  };
}

function spec(t: Tenant, policy: 'Retain' | 'Delete'): Partial<PlatformInstallSpecInput> {
  return {
    deletionPolicy: policy,
    search: { layout: t.layout ?? 'perInstall' },
    dependencies: {
      postgres: {
        url: `postgres://${admin.host}/${t.database}`,
        usernameSecretRef: { name: 'deps', key: 'pg-user' },
        passwordSecretRef: { name: 'deps', key: 'pg-password' },
      },
      redis: { url: `redis://127.0.0.1:${t.redisPort ?? redisPort}/0` },
      opensearch: { url: env.OPENSEARCH_URL },
      s3: {
        url: env.S3_ENDPOINT,
        bucket: t.bucket,
        accessKeySecretRef: { name: 'deps', key: 's3-access' },
        secretKeySecretRef: { name: 'deps', key: 's3-secret' },
      },
      llm: { url: 'http://llm.test/v1', model: 'test-model' },
    },
  };
}

const index = (t: Tenant, name: string) => `pelita-${namespace}-${t.name}-${name}`;
/**
 * The shared knowledge index, as the operator names it: the name real installs (and `make e2e`'s)
 * share on this server. Its first creator fixes its mapping, and this test's is not core-backend's,
 * so an index this test created is removed in afterAll.
 */
const SHARED_KNOWLEDGE = 'pelita-shared-knowledge';
let createdSharedKnowledge = false;
/** The install's documents in the shared knowledge index. */
const sharedKnowledge = (t: Tenant) =>
  tenantIndex(opensearch, SHARED_KNOWLEDGE, { tenant: `${namespace}/${t.name}` });
const keyPrefix = (t: Tenant) => `pelita:${namespace}/${t.name}:`;

/** What the services would have left: rows in their tables, documents, keys, objects. */
async function seed(t: Tenant): Promise<void> {
  if (!databases.includes(t.database)) {
    databases.push(t.database);
    await withPostgres('postgres', (c) => c.query(`create database ${t.database}`));
    await withPostgres(t.database, async (c) => {
      await c.query('create table users (id int primary key)');
      await c.query('create table roles (id int primary key)');
      await c.query('create table schema_migrations (version text primary key)');
      await c.query('create schema core_backend');
      await c.query('create table core_backend.workspaces (id int primary key)');
      await c.query('insert into users values (1)');
      // Not Pelita's: stays whatever happens.
      await c.query('create table their_own (id int)');
    });
  }
  if (!buckets.includes(t.bucket)) {
    buckets.push(t.bucket);
    await s3.send(new CreateBucketCommand({ Bucket: t.bucket }));
  }
  for (const key of [`document-originals/${t.name}-1`, `users/${t.name}/photo-1`]) {
    await s3.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: 'x' }));
  }
  for (const name of ['knowledge', 'user-activity-log']) {
    await opensearch.index({
      index: index(t, name),
      body: { text: t.name },
      refresh: true,
    });
  }
  await redis.set(`${keyPrefix(t)}session:1`, 'x');
  await redis.set(`${keyPrefix(t)}ocr:task:1`, 'x');
}

interface Listing {
  indexes: string[];
  keys: string[];
  objects: string[];
  tables: string[];
}

async function objects(bucket: string): Promise<string[]> {
  try {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (page.Contents ?? []).map((o) => o.Key ?? '');
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchBucket') return [];
    throw err;
  }
}

/** Everything of `t` on the servers, as an operator of those servers would list it. */
async function listing(t: Tenant): Promise<Listing> {
  const names = ['knowledge', 'user-activity-log'].map((n) => index(t, n));
  const indexes: string[] = [];
  for (const name of names) {
    if ((await opensearch.indices.exists({ index: name })).body) indexes.push(name);
  }
  const tables = await withPostgres(t.database, async (c) =>
    (
      await c.query<{ name: string }>(
        `select table_schema || '.' || table_name as name from information_schema.tables
         where table_schema in ('public', 'core_backend') order by 1`,
      )
    ).rows.map((r) => r.name),
  );
  return {
    indexes,
    keys: (await redis.keys(`${keyPrefix(t)}*`)).sort(),
    objects: (await objects(t.bucket)).sort(),
    tables,
  };
}

async function create(t: Tenant, policy: 'Retain' | 'Delete'): Promise<void> {
  await apply(cluster, platformInstall(namespace, t.name, spec(t, policy)));
  // The operator has seen it once it carries the finalizer.
  await waitFor(
    async () =>
      (await readInstall(cluster, namespace, t.name)).metadata?.finalizers?.includes(
        'pelita.io/data-deletion',
      ) ?? false,
    { what: `the finalizer on ${t.name}`, timeoutMs: 30_000, intervalMs: 100 },
  );
}

async function remove(t: Tenant): Promise<void> {
  await cluster.custom.deleteNamespacedCustomObject({
    group: 'pelita.io',
    version: 'v1alpha1',
    plural: 'platforminstalls',
    namespace,
    name: t.name,
  });
}

async function gone(t: Tenant, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      try {
        await readInstall(cluster, namespace, t.name);
        return false;
      } catch (err) {
        if (status(err) === 404) return true;
        throw err;
      }
    },
    { what: `${t.name} deleted`, timeoutMs, intervalMs: 200 },
  );
}

async function events(name: string, reason: string): Promise<string[]> {
  const list = await cluster.core.listNamespacedEvent({
    namespace,
    fieldSelector: `involvedObject.name=${name},reason=${reason}`,
  });
  return list.items.map((e) => e.message ?? '');
}

const PELITA_TABLES = ['core_backend.workspaces', 'public.roles', 'public.schema_migrations'];

describe('deletionPolicy', () => {
  const a = tenant('a');
  const b = tenant('b');

  it('Delete removes the install’s data and leaves the other install’s', async () => {
    await seed(a);
    await seed(b);
    await create(a, 'Delete');
    await create(b, 'Delete');
    const before = await listing(a);
    expect(before.indexes).toHaveLength(2);
    expect(before.keys).toHaveLength(2);
    expect(before.objects).toHaveLength(2);
    expect(before.tables).toEqual(expect.arrayContaining(PELITA_TABLES));
    const other = await listing(b);

    await remove(a);
    await gone(a);

    expect(await listing(a)).toEqual({
      indexes: [],
      keys: [],
      objects: [],
      // The database is the platform team's; a table Pelita did not create stays in it.
      tables: ['public.their_own'],
    });
    expect(await listing(b)).toEqual(other);
    const [deleted] = await events(a.name, 'DataDeleted');
    expect(deleted).toContain(`OpenSearch indexes ${index(a, 'knowledge')}, `);
    expect(deleted).toContain(`Redis keys under "${keyPrefix(a)}"`);
  });

  it('Delete keeps what another install uses (bucket, database) and says so', async () => {
    const c = tenant('c', b); // b's bucket and database
    await seed(c);
    await create(c, 'Delete');
    const shared = await listing(b);
    await remove(c);
    await gone(c);
    const after = await listing(c);
    expect(after.indexes).toEqual([]);
    expect(after.keys).toEqual([]);
    expect(await listing(b)).toEqual(shared);
    const [kept] = await events(c.name, 'DataShared');
    expect(kept).toContain(`objects in bucket ${b.bucket}`);
    expect(kept).toContain(`used by ${namespace}/b`);
  });

  it("Delete removes its documents from the shared indexes, leaving the indexes and the other install's", async () => {
    const f: Tenant = { ...tenant('f'), layout: 'shared' };
    const g: Tenant = { ...tenant('g'), layout: 'shared' };
    createdSharedKnowledge = !(await opensearch.indices.exists({ index: SHARED_KNOWLEDGE })).body;
    for (const t of [f, g]) {
      await seed(t);
      await sharedKnowledge(t).create({ mappings: { properties: { text: { type: 'text' } } } });
      await sharedKnowledge(t).bulk(
        ['p1', 'p2'].map((id) => ({ index: { id, document: { text: t.name } } })),
        true,
      );
      await create(t, 'Delete');
    }
    await remove(f);
    await gone(f);
    expect(await sharedKnowledge(f).count()).toBe(0);
    expect(await sharedKnowledge(g).count()).toBe(2);
    const [deleted] = await events(f.name, 'DataDeleted');
    expect(deleted).toContain(
      `documents of tenant ${namespace}/f in OpenSearch indexes pelita-shared-knowledge, `,
    );
    await remove(g);
    await gone(g);
    expect(await sharedKnowledge(g).count()).toBe(0);
  });

  it('Retain removes nothing and names what it kept in an Event', async () => {
    const d = tenant('d');
    await seed(d);
    await create(d, 'Retain');
    const before = await listing(d);
    await remove(d);
    await gone(d);
    expect(await listing(d)).toEqual(before);
    const [retained] = await events(d.name, 'DataRetained');
    expect(retained).toContain(`OpenSearch indexes ${index(d, 'knowledge')}, `);
    expect(retained).toContain(`objects in bucket ${d.bucket}`);
    expect(retained).toContain(`PostgreSQL schema core_backend of database ${d.database}`);
  });

  it('stays in deletion, Degraded, while a server is down, and finishes once it is back', async () => {
    const e: Tenant = { ...tenant('e'), redisPort: redisLink.port };
    await seed(e);
    await create(e, 'Delete');
    await redisLink.cut();
    try {
      await remove(e);
      await waitFor(
        async () => {
          const degraded = condition(await readInstall(cluster, namespace, e.name), 'Degraded');
          return degraded?.reason === 'DataDeletionFailed';
        },
        { what: 'Degraded/DataDeletionFailed', timeoutMs: 30_000, intervalMs: 200 },
      );
      const stored = await readInstall(cluster, namespace, e.name);
      expect(condition(stored, 'Degraded')?.message).toContain(
        `redis redis://127.0.0.1:${redisLink.port}/0`,
      );
      expect(stored.metadata?.finalizers).toContain('pelita.io/data-deletion');
      // What could be deleted was: only the keys wait for Redis.
      expect((await listing(e)).indexes).toEqual([]);
      expect((await listing(e)).keys).toHaveLength(2);
    } finally {
      await redisLink.restore();
    }
    // The work queue's backoff brings it back (it doubles from 250 ms while Redis is away).
    await gone(e, 90_000);
    expect((await listing(e)).keys).toEqual([]);
  }, 150_000);

  it('a spec change of the policy takes effect at deletion (Retain, then Delete)', async () => {
    const f = tenant('f');
    await seed(f);
    await create(f, 'Retain');
    await patchInstall(cluster, namespace, f.name, { spec: { deletionPolicy: 'Delete' } });
    await waitFor(
      async () => (await readInstall(cluster, namespace, f.name)).spec.deletionPolicy === 'Delete',
      { what: 'the patched policy', timeoutMs: 10_000 },
    );
    await remove(f);
    await gone(f);
    expect((await listing(f)).objects).toEqual([]);
  });
});
