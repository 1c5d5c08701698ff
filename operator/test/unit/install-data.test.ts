/**
 * What an install has on its servers and which of it another install shares: the decision
 * `deletionPolicy: Delete` carries out. Also the contracts behind it: every index setting the
 * operator renders is known here, and the tables and schema named in the catalog are those the
 * services' migrations create.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { settingsSchema as coreBackend } from '@pelita/core-backend';
import type { PlatformInstall } from '../../src/crd/platform-install';
import {
  decideDeletion,
  describeItem,
  describeItems,
  INDEX_SETTINGS,
  INDEX_SHAPE_SETTINGS,
  installData,
  type DataItem,
} from '../../src/controller/install-data';
import { serviceSettings } from '../../src/render/settings';
import { CATALOG, SERVICE_NAMES } from '../../src/service-catalog';
import { allEnabled, makeInstall, minimalSpec } from './fixtures';

const named = (name: string, namespace: string, install: PlatformInstall): PlatformInstall => ({
  ...install,
  metadata: { ...install.metadata, name, namespace, uid: `uid-${name}` },
});

describe('installData', () => {
  const items = installData(
    makeInstall({ services: allEnabled, search: { layout: 'perInstall' } }),
  );

  it("lists the install's own indexes, key prefix, bucket and database footprint", () => {
    expect(items).toEqual(
      expect.arrayContaining<DataItem>([
        ...[
          'knowledge',
          'user-activity-log',
          'pdf-parsing-results',
          'summarize-document',
          'summarize-document-chunk',
        ].map((name) => ({
          kind: 'index' as const,
          server: 'https://opensearch.db:9200',
          index: `pelita-tenant-acme-acme-${name}`,
        })),
        { kind: 'keys', server: 'redis://redis.db:6379/0', prefix: 'pelita:tenant-acme/acme:' },
        { kind: 'objects', server: 'https://s3.example.com', bucket: 'acme', prefix: '' },
        {
          kind: 'schema',
          server: 'postgres://pg.db:5432',
          database: 'pelita',
          schema: 'core_backend',
        },
      ]),
    );
  });

  it('lists each thing once: the OCR key prefix lies inside the install prefix, tables merge', () => {
    expect(items.filter((i) => i.kind === 'keys')).toHaveLength(1);
    const tables = items.filter((i) => i.kind === 'tables');
    expect(tables).toHaveLength(1);
    expect(tables[0]).toMatchObject({ database: 'pelita' });
    const names = (tables[0] as { tables: string[] }).tables;
    expect(names).toEqual(expect.arrayContaining(['users', 'roles', 'admin_users']));
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(items.map((i) => JSON.stringify(i))).size).toBe(items.length);
  });

  it('follows the settings the services really run with (services.<service>.env wins)', () => {
    const install = makeInstall({
      search: { layout: 'perInstall' },
      services: {
        'core-backend': {
          env: [
            { name: 'INDEX_USER_ACTIVITY_LOG', value: 'user-activity-log' },
            { name: 'DATABASE_SCHEMA', value: 'acme_core' },
          ],
        },
      },
    });
    const data = installData(install);
    expect(data).toContainEqual({
      kind: 'index',
      server: 'https://opensearch.db:9200',
      index: 'user-activity-log',
    });
    expect(data).toContainEqual(expect.objectContaining({ kind: 'schema', schema: 'acme_core' }));
  });

  it('never carries a credential, and a server without credentials in its name', () => {
    const install = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        redis: { url: 'redis://user:s3cr3t-pw@redis.db:6379/3' },
      },
    });
    const text = JSON.stringify(installData(install));
    expect(text).not.toContain('s3cr3t-pw');
    expect(text).toContain('redis://redis.db:6379/3');
  });

  it('knows every index setting the operator renders', () => {
    const install = makeInstall({ services: allEnabled });
    const rendered = SERVICE_NAMES.flatMap((service) =>
      Object.keys(serviceSettings(install, service).config).filter(
        (name) => /INDEX/.test(name) && !(INDEX_SHAPE_SETTINGS as readonly string[]).includes(name),
      ),
    );
    expect(rendered.length).toBeGreaterThan(0);
    for (const name of rendered) expect(INDEX_SETTINGS).toContain(name);
  });
});

describe('decideDeletion', () => {
  const perInstall = { search: { layout: 'perInstall' as const } };
  const acme = installData(named('acme', 't1', makeInstall(perInstall)));

  it('removes everything when no other install shares a thing', () => {
    const other = installData(named('globex', 't2', makeInstall(perInstall)));
    const decision = decideDeletion(acme, [{ key: 't2/globex', items: other }]);
    // Same servers, own names: only the bucket and the database are shared.
    expect(decision.keep.map((k) => k.item.kind).sort()).toEqual(['objects', 'schema', 'tables']);
    expect(decision.remove.map((i) => i.kind).sort()).toEqual([
      'index',
      'index',
      'index',
      'index',
      'index',
      'keys',
    ]);
  });

  it("removes its tenant's documents of the shared indexes, never another's, and its own old indexes", () => {
    const shared = (name: string) => installData(named(name, 't1', makeInstall()));
    const [a, b] = [shared('acme'), shared('globex')];
    const indexes = (items: DataItem[]) => items.filter((item) => item.kind === 'index');
    expect(indexes(a)).toEqual(
      expect.arrayContaining([
        {
          kind: 'index',
          server: 'https://opensearch.db:9200',
          index: 'pelita-shared-knowledge',
          tenant: 't1/acme',
        },
        { kind: 'index', server: 'https://opensearch.db:9200', index: 'pelita-t1-acme-knowledge' },
      ]),
    );
    const decision = decideDeletion(a, [{ key: 't1/globex', items: b }]);
    expect(indexes(decision.remove)).toEqual(indexes(a));
    expect(indexes(decision.remove).filter((item) => 'tenant' in item)).toHaveLength(5);
    expect(a.map(describeItem)).toContain(
      'documents of tenant t1/acme in OpenSearch index pelita-shared-knowledge on https://opensearch.db:9200',
    );
  });

  it('names the indexes of one server and tenant together, for Events cut at 1,024 characters', () => {
    const described = describeItems(installData(named('acme', 't1', makeInstall())));
    expect(described).toEqual(
      expect.arrayContaining([
        'documents of tenant t1/acme in OpenSearch indexes pelita-shared-knowledge, pelita-shared-pdf-parsing-results, pelita-shared-summarize-document, pelita-shared-summarize-document-chunk, pelita-shared-user-activity-log on https://opensearch.db:9200',
        'OpenSearch indexes pelita-t1-acme-knowledge, pelita-t1-acme-pdf-parsing-results, pelita-t1-acme-summarize-document, pelita-t1-acme-summarize-document-chunk, pelita-t1-acme-user-activity-log on https://opensearch.db:9200',
        'Redis keys under "pelita:t1/acme:" on redis://redis.db:6379/0',
      ]),
    );
    expect(described.join('; ').length).toBeLessThan(1024);
  });

  it('keeps a whole index another install uses, with or without a tenant', () => {
    // globex reads the activity log index acme shares, without a tenant: the index is theirs too.
    const whole = makeInstall({
      ...perInstall,
      services: {
        'user-service': {
          env: [{ name: 'INDEX_USER_ACTIVITY_LOG', value: 'pelita-shared-user-activity-log' }],
        },
      },
    });
    const decision = decideDeletion(installData(named('globex', 't2', whole)), [
      { key: 't1/acme', items: installData(named('acme', 't1', makeInstall())) },
    ]);
    expect(decision.keep.map((k) => (k.item as { index?: string }).index)).toContain(
      'pelita-shared-user-activity-log',
    );
  });

  it('keeps what another install resolves to, naming it', () => {
    const other = makeInstall({
      services: { 'user-service': { env: [{ name: 'REDIS_KEY_PREFIX', value: 'pelita:' }] } },
    });
    const decision = decideDeletion(acme, [
      { key: 't2/globex', items: installData(named('globex', 't2', other)) },
    ]);
    const keys = decision.keep.find((k) => k.item.kind === 'keys');
    expect(keys?.sharedWith).toEqual(['t2/globex']);
  });

  it('deletes a bucket, keyspace and database used by no one else', () => {
    const alone = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        postgres: { url: 'postgres://pg.db:5432/globex' },
        redis: { url: 'redis://redis.db:6379/1' },
        s3: { ...minimalSpec.dependencies!.s3!, bucket: 'globex' },
      },
    });
    const decision = decideDeletion(acme, [
      { key: 't2/globex', items: installData(named('globex', 't2', alone)) },
    ]);
    expect(decision.keep).toEqual([]);
    expect(decision.remove).toEqual(acme);
  });

  it('describes each thing with its server, for Events', () => {
    expect(acme.map(describeItem)).toContain(
      'OpenSearch index pelita-t1-acme-knowledge on https://opensearch.db:9200',
    );
  });
});

describe('the database footprint in the catalog', () => {
  const REPO = path.resolve(__dirname, '../../..');

  it('names exactly the tables the migrations of a search_path service create', () => {
    for (const service of SERVICE_NAMES) {
      const footprint = CATALOG[service].database;
      if (!footprint || !('tables' in footprint)) continue;
      const dir = path.join(REPO, 'services', service, 'migrations');
      const created = readdirSync(dir)
        .filter((file) => file.endsWith('.sql'))
        .flatMap((file) =>
          [
            ...readFileSync(path.join(dir, file), 'utf8').matchAll(
              /create\s+table\s+(?:if\s+not\s+exists\s+)?([a-z_]+)/gi,
            ),
          ].map((m) => m[1]!.toLowerCase()),
        );
      expect([...footprint.tables].sort()).toEqual([...created, 'schema_migrations'].sort());
    }
  });

  it("uses core-backend's own default schema", () => {
    const footprint = CATALOG['core-backend'].database;
    expect(footprint).toEqual({
      schemaSetting: 'DATABASE_SCHEMA',
      defaultSchema: coreBackend.shape.DATABASE_SCHEMA.parse(undefined),
    });
  });
});
