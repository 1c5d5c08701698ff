/**
 * The modules deleting an install's data, each against its real server of make testenv: pages
 * larger than one SCAN or one ListObjectsV2/DeleteObjects, neighbours left alone, nothing
 * reached through a pattern.
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
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteObjectsUnder } from '../../src/data/bucket-objects';
import { dropSchema, dropTables } from '../../src/data/database-tables';
import { deleteIndexes, deleteTenantDocuments } from '../../src/data/opensearch-indexes';
import { deleteKeysUnder } from '../../src/data/redis-keys';

const env = requireEnv(
  'POSTGRES_URL',
  'REDIS_URL',
  'OPENSEARCH_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_REGION',
);
const run = randomBytes(3).toString('hex');

describe('Redis keys under a prefix', () => {
  const redis = new Redis(env.REDIS_URL);
  afterAll(() => redis.disconnect());

  it('deletes every key under it across many SCAN pages, and no other', async () => {
    const prefix = `pelita:data-${run}/a:`;
    const pipeline = redis.pipeline();
    for (let i = 0; i < 3000; i += 1) pipeline.set(`${prefix}k${i}`, 'x');
    pipeline.set(`pelita:data-${run}/ab:k`, 'neighbour');
    pipeline.set(`pelita:data-${run}/a`, 'no colon: not under the prefix');
    await pipeline.exec();

    expect(await deleteKeysUnder({ REDIS_URL: env.REDIS_URL }, prefix)).toBe(3000);
    expect(await redis.keys(`${prefix}*`)).toEqual([]);
    expect(await redis.get(`pelita:data-${run}/ab:k`)).toBe('neighbour');
    expect(await redis.exists(`pelita:data-${run}/a`)).toBe(1);
    await redis.del(`pelita:data-${run}/ab:k`, `pelita:data-${run}/a`);
  });

  it('matches the prefix literally (its glob characters escaped) and refuses an empty one', async () => {
    const literal = `data-${run}-[ab]*:`;
    await redis.set(`${literal}k`, 'x');
    await redis.set(`data-${run}-a:k`, 'would match the unescaped pattern');
    expect(await deleteKeysUnder({ REDIS_URL: env.REDIS_URL }, literal)).toBe(1);
    expect(await redis.get(`data-${run}-a:k`)).not.toBeNull();
    await redis.del(`data-${run}-a:k`);
    await expect(deleteKeysUnder({ REDIS_URL: env.REDIS_URL }, '')).rejects.toThrow(/empty/);
  });

  it('fails, without waiting long, when the server cannot be reached', async () => {
    const started = Date.now();
    await expect(
      deleteKeysUnder({ REDIS_URL: 'redis://127.0.0.1:1/0' }, 'pelita:x:'),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('objects under a prefix', () => {
  const s3 = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY, secretAccessKey: env.S3_SECRET_KEY },
  });
  const server = {
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    accessKey: env.S3_ACCESS_KEY,
    secretKey: env.S3_SECRET_KEY,
  };
  const bucket = `data-${run}`;
  const list = async () =>
    (await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents?.map((o) => o.Key) ?? [];

  beforeAll(() => s3.send(new CreateBucketCommand({ Bucket: bucket })));
  afterAll(async () => {
    const keys = await list();
    if (keys.length > 0) {
      await s3.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })) },
        }),
      );
    }
    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    s3.destroy();
  });

  it('deletes more than one page (1,000 keys) under the prefix, and nothing beside it', async () => {
    const keys = Array.from({ length: 1200 }, (_, i) => `tenant-a/${i}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys
          .slice(i, i + 50)
          .map((Key) => s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: 'x' }))),
      );
    }
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'tenant-b/1', Body: 'x' }));

    expect(await deleteObjectsUnder(server, bucket, 'tenant-a/')).toBe(1200);
    expect(await list()).toEqual(['tenant-b/1']);
  }, 120_000);

  it('empties the whole bucket for an empty prefix; a missing bucket is already empty', async () => {
    expect(await deleteObjectsUnder(server, bucket, '')).toBe(1);
    expect(await list()).toEqual([]);
    expect(await deleteObjectsUnder(server, `${bucket}-missing`, '')).toBe(0);
  });
});

describe('OpenSearch indexes', () => {
  const opensearch = new OpenSearch({ node: env.OPENSEARCH_URL });
  afterAll(() => opensearch.close());
  const exists = async (index: string) => (await opensearch.indices.exists({ index })).body;

  it('deletes the named indexes only; a missing one is fine, a pattern is refused', async () => {
    const mine = `data-${run}-knowledge`;
    const neighbour = `data-${run}-knowledge-2`;
    for (const index of [mine, neighbour]) await opensearch.indices.create({ index });

    await deleteIndexes({ OPENSEARCH_URL: env.OPENSEARCH_URL }, [mine, `data-${run}-missing`]);
    expect(await exists(mine)).toBe(false);
    expect(await exists(neighbour)).toBe(true);
    await expect(
      deleteIndexes({ OPENSEARCH_URL: env.OPENSEARCH_URL }, [`data-${run}-*`]),
    ).rejects.toThrow(/not plain index names/);
    expect(await exists(neighbour)).toBe(true);
    await opensearch.indices.delete({ index: neighbour });
  });

  it("deletes a tenant's documents of a shared index, more than one batch, and leaves the index and the others'", async () => {
    const shared = `data-${run}-shared`;
    const of = (tenant: string) => tenantIndex(opensearch, shared, { tenant, replicas: 0 });
    await of('t1/acme').create({ mappings: { properties: { text: { type: 'text' } } } });
    const documents = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ index: { id: `d${i}`, document: { text: 'x' } } }));
    await of('t1/acme').bulk(documents(1500), true);
    await of('t2/globex').bulk(documents(3), true);
    try {
      const server = { OPENSEARCH_URL: env.OPENSEARCH_URL };
      expect(await deleteTenantDocuments(server, shared, 't1/acme')).toBe(1500);
      expect(await exists(shared)).toBe(true);
      expect(await of('t1/acme').count()).toBe(0);
      expect(await of('t2/globex').count()).toBe(3);
      expect(await deleteTenantDocuments(server, `data-${run}-missing`, 't1/acme')).toBe(0);
      await expect(deleteTenantDocuments(server, `data-${run}-*`, 't1/acme')).rejects.toThrow(
        /not a plain index name/,
      );
    } finally {
      await opensearch.indices.delete({ index: shared });
    }
  });
});

describe('PostgreSQL tables and schema', () => {
  const database = `data_${run}`;
  const url = (db: string) => {
    const u = new URL(env.POSTGRES_URL);
    u.pathname = `/${db}`;
    return u;
  };
  const query = async (db: string, sql: string) => {
    const client = new pg.Client({ connectionString: url(db).toString() });
    await client.connect();
    try {
      return (await client.query<{ name: string }>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const tables = async () =>
    (
      await query(
        database,
        `select table_schema || '.' || table_name as name from information_schema.tables
         where table_schema in ('public', 'core_backend') order by 1`,
      )
    ).map((r) => r.name);

  beforeAll(async () => {
    await query('postgres', `create database ${database}`);
    for (const sql of [
      'create table roles (id int primary key)',
      'create table users (id int primary key, role int references roles(id))',
      'create table their_own (id int)',
      'create schema core_backend',
      'create table core_backend.workspaces (id int)',
    ]) {
      await query(database, sql);
    }
  });
  afterAll(() => query('postgres', `drop database if exists ${database}`));

  it('drops the listed tables and the schema, with the credentials given apart from the URL', async () => {
    const credentials = url(database);
    const server = {
      url: `postgres://${credentials.host}/${database}`,
      user: decodeURIComponent(credentials.username),
      password: decodeURIComponent(credentials.password),
    };
    await dropTables(server, ['users', 'roles', 'schema_migrations']);
    await dropSchema(server, 'core_backend');
    expect(await tables()).toEqual(['public.their_own']);
    await expect(dropTables(server, ['users; drop table their_own'])).rejects.toThrow(/identifier/);
  });
});
