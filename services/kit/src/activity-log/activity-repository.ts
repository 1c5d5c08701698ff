/** The user activity log in OpenSearch: one document per action, searched by user, action and time. */
import type { Types } from '@opensearch-project/opensearch';
import { moveLegacyIndex } from '../legacy-index-move';
import { createOpenSearchClient } from '../opensearch-client';
import { tenantIndex, type SearchLayout } from '../tenant-index';
import type { ActivityChange } from './activity-changes';

export interface ActivityEntry {
  userId: string | null;
  username: string | null;
  /** `METHOD /route/template`, e.g. `PATCH /users/:id`. */
  action: string;
  method: string;
  path: string;
  statusCode: number;
  ip: string;
  userAgent: string;
  /** ISO 8601, UTC. */
  timestamp: string;
  /** What the action changed, when its handler said (`recordChanges`); absent in older entries. */
  changes?: ActivityChange[];
}

export interface ActivityQuery {
  userId?: string | undefined;
  username?: string | undefined;
  action?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  page: number;
  limit: number;
}

/**
 * The stored document: the index's field names (snake_case, as the mappings below). The user
 * service answers its activity log in these names too.
 */
export interface ActivityDocument {
  user_id: string | null;
  username: string | null;
  action: string;
  method: string;
  path: string;
  status_code: number;
  ip: string;
  user_agent: string;
  timestamp: string;
  changes?: ActivityChange[];
}

export const toActivityDocument = (entry: ActivityEntry): ActivityDocument => ({
  user_id: entry.userId,
  username: entry.username,
  action: entry.action,
  method: entry.method,
  path: entry.path,
  status_code: entry.statusCode,
  ip: entry.ip,
  user_agent: entry.userAgent,
  timestamp: entry.timestamp,
  ...(entry.changes ? { changes: entry.changes } : {}),
});

const toEntry = (doc: ActivityDocument): ActivityEntry => ({
  userId: doc.user_id,
  username: doc.username,
  action: doc.action,
  method: doc.method,
  path: doc.path,
  statusCode: doc.status_code,
  ip: doc.ip,
  userAgent: doc.user_agent,
  timestamp: doc.timestamp,
  ...(doc.changes ? { changes: doc.changes } : {}),
});

const MAPPINGS = {
  properties: {
    user_id: { type: 'keyword' },
    username: { type: 'keyword' },
    action: { type: 'keyword' },
    method: { type: 'keyword' },
    path: { type: 'keyword' },
    status_code: { type: 'integer' },
    ip: { type: 'keyword' },
    user_agent: { type: 'text' },
    timestamp: { type: 'date' },
    // Searchable by the changed field; the values are kept as sent (any JSON), not indexed.
    changes: {
      properties: {
        field: { type: 'keyword' },
        before: { type: 'object', enabled: false },
        after: { type: 'object', enabled: false },
      },
    },
  },
} as const;

/**
 * `layout`: whether the index is shared with other installs (their documents are never read),
 * and the shards and replicas it is created with.
 */
export function createActivityRepository(
  url: string,
  index: string,
  auth?: { username: string; password: string },
  layout: SearchLayout = {},
) {
  const client = createOpenSearchClient(
    {
      OPENSEARCH_URL: url,
      OPENSEARCH_USERNAME: auth?.username,
      OPENSEARCH_PASSWORD: auth?.password,
    },
    { requestTimeout: 5000 },
  );
  const log = tenantIndex(client, index, layout);
  return {
    /** Creates the index with its mappings unless it exists (another replica may race: fine). */
    async ensureIndex(): Promise<void> {
      if (await log.create({ mappings: MAPPINGS })) {
        // An index made before `changes` existed gets its mapping (adding fields is allowed);
        // left to dynamic mapping, the first value's type would refuse every other. (The tenant
        // field of a shared index is `create`'s to check.)
        await client.indices.putMapping({ index, body: { properties: MAPPINGS.properties } });
      }
    },
    /** Moves the entries of `legacy`, the install's own index before it shared this one. */
    moveLegacy: (legacy: string | undefined) => moveLegacyIndex(client, legacy, log),
    async record(entry: ActivityEntry): Promise<void> {
      await log.put(undefined, { ...toActivityDocument(entry) });
    },
    async search(query: ActivityQuery): Promise<{ entries: ActivityEntry[]; total: number }> {
      const filter: Types.Common_QueryDsl.QueryContainer[] = [];
      if (query.userId) filter.push({ term: { user_id: query.userId } });
      if (query.username) filter.push({ term: { username: query.username } });
      if (query.action) filter.push({ term: { action: query.action } });
      if (query.from || query.to) {
        filter.push({
          range: {
            timestamp: {
              ...(query.from ? { gte: query.from.toISOString() } : {}),
              ...(query.to ? { lte: query.to.toISOString() } : {}),
            },
          },
        });
      }
      const { hits, total } = await log.search<ActivityDocument & { tenant?: string }>({
        query: { bool: { filter } },
        sort: [{ timestamp: { order: 'desc' } }],
        from: (query.page - 1) * query.limit,
        size: query.limit,
        track_total_hits: true,
      });
      return { entries: hits.map((hit) => toEntry(hit.source)), total };
    },
    refresh: () => log.refresh(),
    ping: () => client.ping(),
    close: () => client.close(),
  };
}

export type ActivityRepository = ReturnType<typeof createActivityRepository>;
