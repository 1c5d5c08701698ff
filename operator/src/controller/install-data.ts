/**
 * The data an install has on the servers it points at, and which of it another install uses too:
 * the decision behind `deletionPolicy` (the deletion itself is data-deletion.ts and src/data/).
 *
 * What an install has is read from the settings its services really run with: the rendered
 * ConfigMap values with `services.<service>.env` over them (container env wins over the
 * ConfigMap's envFrom), so an install pointed back at a shared name (the upgrade notes suggest
 * `INDEX_USER_ACTIVITY_LOG=user-activity-log`) resolves to that shared name and is kept.
 */
import type { PlatformInstall } from '../crd/platform-install';
import { serviceSettings } from '../render/settings';
import { CATALOG, SERVICE_NAMES, type ServiceName } from '../service-catalog';

/**
 * The settings naming an OpenSearch index of a service (test/unit/install-data.test.ts fails on
 * a rendered setting with INDEX in its name that is missing here or in INDEX_SHAPE_SETTINGS).
 * With SEARCH_TENANT the install's data in them is its tenant's documents; the LEGACY_ ones
 * (its own indexes from before it shared them) are its own whole.
 */
export const INDEX_SETTINGS = [
  'KNOWLEDGE_INDEX',
  'INDEX_USER_ACTIVITY_LOG',
  'INDEX_PDF_PARSING_RESULTS',
  'INDEX_DOCUMENT_SUMMARIZE',
  'INDEX_DOCUMENT_SUMMARIZE_CHUNK',
  'LEGACY_KNOWLEDGE_INDEX',
  'LEGACY_INDEX_USER_ACTIVITY_LOG',
  'LEGACY_INDEX_PDF_PARSING_RESULTS',
  'LEGACY_INDEX_DOCUMENT_SUMMARIZE',
  'LEGACY_INDEX_DOCUMENT_SUMMARIZE_CHUNK',
] as const;

/** Settings with INDEX in their names that name no index: the shape of the ones created. */
export const INDEX_SHAPE_SETTINGS = ['INDEX_SHARDS', 'INDEX_REPLICAS'] as const;

/**
 * One thing of an install's data; `server` is the server's origin, never with credentials. An
 * index with a `tenant` is shared: the install's data is the documents of its tenant.
 */
export type DataItem =
  | { kind: 'index'; server: string; index: string; tenant?: string }
  | { kind: 'keys'; server: string; prefix: string }
  | { kind: 'objects'; server: string; bucket: string; prefix: string }
  | { kind: 'schema'; server: string; database: string; schema: string }
  | { kind: 'tables'; server: string; database: string; tables: string[] };

export type ServerKind = 'opensearch' | 'redis' | 's3' | 'postgres';

export const SERVER_KIND: Record<DataItem['kind'], ServerKind> = {
  index: 'opensearch',
  keys: 'redis',
  objects: 's3',
  schema: 'postgres',
  tables: 'postgres',
};

/** Every service's settings as its containers see them (all services: a disabled one may have run). */
function resolvedSettings(install: PlatformInstall, service: ServiceName): Record<string, string> {
  const overrides = Object.fromEntries(
    install.spec.services[service].env.map(({ name, value }) => [name, value]),
  );
  return { ...serviceSettings(install, service).config, ...overrides };
}

export function installData(install: PlatformInstall): DataItem[] {
  const items: DataItem[] = [];
  for (const service of SERVICE_NAMES) {
    const settings = resolvedSettings(install, service);
    const opensearch = settings.OPENSEARCH_URL;
    if (opensearch) {
      for (const name of INDEX_SETTINGS) {
        const index = settings[name];
        const tenant = name.startsWith('LEGACY_') ? undefined : settings.SEARCH_TENANT;
        if (index) {
          items.push({
            kind: 'index',
            server: origin(opensearch),
            index,
            ...(tenant && { tenant }),
          });
        }
      }
    }
    // A service without a key prefix (policy-sync: publish/subscribe only) has no keys to find.
    if (settings.REDIS_URL && settings.REDIS_KEY_PREFIX) {
      items.push({
        kind: 'keys',
        server: redisServer(settings.REDIS_URL),
        prefix: settings.REDIS_KEY_PREFIX,
      });
    }
    // The services put their objects under fixed names (`document-originals/`, `ocr-uploads/`,
    // `users/`), with no per-install prefix: an install's objects are its bucket's objects.
    if (settings.S3_BUCKET) {
      items.push({
        kind: 'objects',
        server: origin(settings.S3_ENDPOINT ?? 'https://s3.amazonaws.com'),
        bucket: settings.S3_BUCKET,
        prefix: '',
      });
    }
    const footprint = CATALOG[service].database;
    if (settings.DATABASE_URL && footprint) {
      const { server, database } = postgresDatabase(settings.DATABASE_URL);
      items.push(
        'tables' in footprint
          ? { kind: 'tables', server, database, tables: [...footprint.tables] }
          : {
              kind: 'schema',
              server,
              database,
              schema: settings[footprint.schemaSetting] ?? footprint.defaultSchema,
            },
      );
    }
  }
  return merged(items);
}

/** One item per thing: duplicates dropped, a key prefix inside another dropped, tables united. */
function merged(items: DataItem[]): DataItem[] {
  const out: DataItem[] = [];
  const byPrefixLength = [...items].sort(
    (a, b) => (a.kind === 'keys' ? a.prefix.length : 0) - (b.kind === 'keys' ? b.prefix.length : 0),
  );
  for (const item of byPrefixLength) {
    const same = out.find((o) => sameThing(o, item));
    if (!same) out.push(item.kind === 'tables' ? { ...item, tables: [...item.tables] } : item);
    else if (same.kind === 'tables' && item.kind === 'tables') {
      same.tables.push(...item.tables.filter((t) => !same.tables.includes(t)));
    }
  }
  return out;
}

/** Whether `a` and `b` name the same data or overlapping data (one prefix inside the other). */
function sameThing(a: DataItem, b: DataItem): boolean {
  if (a.kind !== b.kind || a.server !== b.server) return false;
  switch (a.kind) {
    case 'index': {
      // A whole index overlaps every tenant's documents in it; two tenants' documents do not.
      const { index, tenant } = b as typeof a;
      return a.index === index && (!a.tenant || !tenant || a.tenant === tenant);
    }
    case 'keys':
      return overlaps(a.prefix, (b as typeof a).prefix);
    case 'objects':
      return a.bucket === (b as typeof a).bucket && overlaps(a.prefix, (b as typeof a).prefix);
    case 'schema':
      return a.database === (b as typeof a).database && a.schema === (b as typeof a).schema;
    case 'tables':
      // The services' tables go to the connection's search_path: one database, one set.
      return a.database === (b as typeof a).database;
  }
}

const overlaps = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);

export interface DeletionDecision {
  remove: DataItem[];
  /** Kept because other installs (`namespace/name`) resolve to the same thing. */
  keep: Array<{ item: DataItem; sharedWith: string[] }>;
}

/** Which of `mine` to remove: everything no other install resolves to as well. */
export function decideDeletion(
  mine: readonly DataItem[],
  others: ReadonlyArray<{ key: string; items: readonly DataItem[] }>,
): DeletionDecision {
  const decision: DeletionDecision = { remove: [], keep: [] };
  for (const item of mine) {
    const sharedWith = others
      .filter((other) => other.items.some((theirs) => sameThing(item, theirs)))
      .map((other) => other.key);
    if (sharedWith.length > 0) decision.keep.push({ item, sharedWith });
    else decision.remove.push(item);
  }
  return decision;
}

/** For Events and conditions: what the item is and where, without any credential. */
export function describeItem(item: DataItem): string {
  switch (item.kind) {
    case 'index':
      return item.tenant
        ? `documents of tenant ${item.tenant} in OpenSearch index ${item.index} on ${item.server}`
        : `OpenSearch index ${item.index} on ${item.server}`;
    case 'keys':
      return `Redis keys under "${item.prefix}" on ${item.server}`;
    case 'objects':
      return item.prefix
        ? `objects under "${item.prefix}" in bucket ${item.bucket} on ${item.server}`
        : `objects in bucket ${item.bucket} on ${item.server}`;
    case 'schema':
      return `PostgreSQL schema ${item.schema} of database ${item.database} on ${item.server}`;
    case 'tables':
      return `PostgreSQL tables ${item.tables.join(', ')} of database ${item.database} on ${item.server}`;
  }
}

/**
 * {@link describeItem} of each, the indexes of one server and tenant named together: an Event's
 * message is cut at 1,024 characters, and ten index names one by one would fill it.
 */
export function describeItems(items: readonly DataItem[]): string[] {
  const groups = new Map<string, DataItem[]>();
  for (const item of items) {
    const key =
      item.kind === 'index' ? `index ${item.server} ${item.tenant ?? ''}` : JSON.stringify(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()].map((group) => {
    const [first] = group as [DataItem, ...DataItem[]];
    if (first.kind !== 'index' || group.length === 1) return describeItem(first);
    const names = group
      .map((item) => (item as typeof first).index)
      .sort()
      .join(', ');
    const where = `OpenSearch indexes ${names} on ${first.server}`;
    return first.tenant ? `documents of tenant ${first.tenant} in ${where}` : where;
  });
}

/** `scheme://host:port`: user, password, path and query left out. */
function origin(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/** Redis numbers its databases: `redis://host:port/7` is another keyspace than `/0`. */
function redisServer(url: string): string {
  const parsed = new URL(url);
  const db = /^\/(\d+)/.exec(parsed.pathname)?.[1] ?? '0';
  return `${parsed.protocol}//${parsed.host}/${db}`;
}

function postgresDatabase(url: string): { server: string; database: string } {
  const parsed = new URL(url);
  const port = parsed.port || '5432';
  return {
    server: `postgres://${parsed.hostname}:${port}`,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres',
  };
}
