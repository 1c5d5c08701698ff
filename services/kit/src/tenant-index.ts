/**
 * The one way services touch an OpenSearch index of theirs: a handle scoped to one tenant (one
 * install). Many installs share one index (`SEARCH_TENANT` set): every query the handle sends
 * carries a `term` filter on the `tenant` field (inside k-NN's own `filter` too) and
 * `routing: tenant`, every document it writes carries the field and the routing, and every id is
 * prefixed with the tenant, so no install reads, overwrites or deletes another's documents, even
 * by guessing an id. Without a tenant the index is the install's alone (the per-install layout)
 * and the handle sends the requests unchanged.
 *
 * test/unit/raw-opensearch-calls.test.ts fails when a service queries or writes through the raw
 * client anywhere but here and in the legacy-index move (legacy-index-move.ts).
 */
import type { API, Client } from '@opensearch-project/opensearch';
import { errorMessage } from './error-message';
import { createIndexUnlessExists, type SearchLayoutSettings } from './opensearch-client';

/** How the install's indexes are laid out: from SEARCH_TENANT, INDEX_SHARDS, INDEX_REPLICAS. */
export interface SearchLayout {
  /** Set when the indexes are shared with other installs: this install's documents. */
  tenant?: string | undefined;
  /** Primary shards and replicas of an index this service creates; unset: the server's. */
  shards?: number | undefined;
  replicas?: number | undefined;
}

export const searchLayout = (settings: SearchLayoutSettings): SearchLayout => ({
  tenant: settings.SEARCH_TENANT,
  shards: settings.INDEX_SHARDS,
  replicas: settings.INDEX_REPLICAS,
});

/** The field naming a document's tenant. */
const TENANT_FIELD = 'tenant';

type Query = Record<string, unknown>;

/**
 * What a scoped search may ask: the query and how to page its hits. Nothing that reads beyond
 * the query's hits (a suggester reads the whole index's terms).
 */
export interface ScopedSearch {
  query?: Query;
  sort?: unknown[];
  from?: number;
  size?: number;
  track_total_hits?: boolean;
  _source?: boolean | { excludes?: string[]; includes?: string[] };
}

export interface ScopedHit<S> {
  /** The id the service gave the document (the tenant prefix taken off). */
  id: string;
  source: S;
}

/** `index` writes over a document of the same id; `create` leaves an existing one as it is. */
export type BulkOperation =
  | { index: { id: string; document: Record<string, unknown> } }
  | { create: { id: string; document: Record<string, unknown> } }
  | { delete: { id: string } };

type Refresh = boolean | 'wait_for';

export interface TenantIndex {
  readonly name: string;
  /** Creates the index (its shards and replicas from the layout) unless it exists; true if it did. */
  create(body: {
    mappings: { properties: Record<string, unknown> };
    settings?: Record<string, unknown>;
  }): Promise<boolean>;
  search<S>(body: ScopedSearch): Promise<{ hits: Array<ScopedHit<S>>; total: number }>;
  count(query?: Query): Promise<number>;
  /** The document with this id, if it exists (and is this tenant's). */
  get<S>(id: string): Promise<S | undefined>;
  /** Writes one document; without an id, OpenSearch makes one. */
  put(id: string | undefined, document: Record<string, unknown>, refresh?: Refresh): Promise<void>;
  /**
   * Index, create and delete operations in one request; throws with the first item's error (a
   * `create` whose id exists is no error).
   */
  bulk(operations: BulkOperation[], refresh?: Refresh): Promise<void>;
  /** Deletes one document; false when it did not exist. */
  delete(id: string, refresh?: Refresh): Promise<boolean>;
  /**
   * Deletes this tenant's documents matching `query`, those written just before included (it
   * refreshes the index first), looked up and deleted by id a batch at a time (delete-by-query
   * is a module some distributions lack). Answers how many went.
   */
  deleteWhere(query: Query): Promise<number>;
  refresh(): Promise<void>;
}

const statusOf = (err: unknown) => (err as { meta?: { statusCode?: number } }).meta?.statusCode;

export function tenantIndex(client: Client, index: string, layout: SearchLayout): TenantIndex {
  const { tenant } = layout;
  if (tenant !== undefined && tenant.trim() === '') throw new Error('SEARCH_TENANT is empty');
  const routing = tenant === undefined ? {} : { routing: tenant };
  const prefix = tenant === undefined ? '' : `${tenant}:`;
  const toStored = (id: string) => prefix + id;
  const fromStored = (id: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : id);
  const stamped = (document: Record<string, unknown>) =>
    tenant === undefined ? document : { ...document, [TENANT_FIELD]: tenant };

  function scoped(query: Query | undefined): Query {
    const given = query ?? { match_all: {} };
    if (tenant === undefined) return given;
    // The outer filter alone isolates (the query stays in `must`: its scores rank the hits);
    // the one inside each k-NN clause keeps the k nearest this tenant's (filtered after the
    // search, other tenants' neighbours would crowd them out).
    return {
      bool: { filter: [{ term: { [TENANT_FIELD]: tenant } }], must: [withKnnFilter(given)] },
    };
  }

  function withKnnFilter(query: unknown): Query {
    return scopeKnn(query, { term: { [TENANT_FIELD]: tenant } }) as Query;
  }

  async function searchRaw(body: ScopedSearch) {
    return client.search({
      index,
      ...routing,
      body: { ...body, query: scoped(body.query) } as API.Search_RequestBody,
    });
  }

  async function bulk(operations: BulkOperation[], refresh: Refresh = false): Promise<void> {
    if (operations.length === 0) return;
    const body = operations.flatMap((operation) => {
      if ('delete' in operation) {
        return [{ delete: { _index: index, _id: toStored(operation.delete.id), ...routing } }];
      }
      const [action, { id, document }] = Object.entries(operation)[0] as [
        'index' | 'create',
        { id: string; document: Record<string, unknown> },
      ];
      return [{ [action]: { _index: index, _id: toStored(id), ...routing } }, stamped(document)];
    });
    const answer = await client.bulk({ body, refresh });
    if (!answer.body.errors) return;
    const error = answer.body.items
      .flatMap((item) => Object.entries(item))
      .find(
        ([action, result]) => result?.error && !(action === 'create' && result.status === 409),
      )?.[1]?.error;
    if (error) throw new Error(`while writing to ${index}: ${JSON.stringify(error)}`);
  }

  return {
    name: index,

    async create(body) {
      const { shards, replicas } = layout;
      const existed = await createIndexUnlessExists(client, index, {
        settings: {
          ...body.settings,
          ...(shards !== undefined ? { number_of_shards: shards } : {}),
          ...(replicas !== undefined ? { number_of_replicas: replicas } : {}),
        },
        mappings: {
          ...body.mappings,
          properties: { ...body.mappings.properties, [TENANT_FIELD]: { type: 'keyword' } },
        },
      });
      if (existed && tenant !== undefined) await requireTenantField(client, index);
      return existed;
    },

    async search<S>(body: ScopedSearch) {
      const answer = await searchRaw(body);
      const { total } = answer.body.hits;
      return {
        hits: answer.body.hits.hits.map((hit) => ({
          id: fromStored(hit._id ?? ''),
          source: hit._source as S,
        })),
        total: typeof total === 'number' ? total : (total?.value ?? 0),
      };
    },

    async count(query) {
      const answer = await client.count({
        index,
        ...routing,
        body: { query: scoped(query) },
      });
      return answer.body.count;
    },

    async get<S>(id: string) {
      const answer = await client.get({ index, id: toStored(id), ...routing }).catch((err) => {
        if (statusOf(err) === 404) return undefined;
        throw err;
      });
      const source = answer?.body._source as Record<string, unknown> | undefined;
      if (!source || (tenant !== undefined && source[TENANT_FIELD] !== tenant)) return undefined;
      return source as S;
    },

    async put(id, document, refresh = false) {
      await client.index({
        index,
        ...(id === undefined ? {} : { id: toStored(id) }),
        ...routing,
        refresh,
        body: stamped(document),
      });
    },

    bulk,

    async delete(id, refresh = false) {
      try {
        await client.delete({ index, id: toStored(id), ...routing, refresh });
        return true;
      } catch (err) {
        if (statusOf(err) === 404) return false;
        throw err;
      }
    },

    async deleteWhere(query) {
      // A search sees what the last refresh made visible (every second by default): a document
      // written just before a deletion would be missed and outlive it.
      await client.indices.refresh({ index });
      let deleted = 0;
      for (;;) {
        const found = await searchRaw({ query, _source: false, size: 1000 });
        const ids = found.body.hits.hits.map((hit) => hit._id).filter((id) => id !== undefined);
        if (ids.length === 0) return deleted;
        // By the ids as stored: a document written without an id has none of the tenant prefix.
        const answer = await client.bulk({
          body: ids.map((id) => ({ delete: { _index: index, _id: id, ...routing } })),
          refresh: true,
        });
        const gone = answer.body.items.filter((item) => item.delete?.result === 'deleted').length;
        // A batch that removes nothing would be found again by the next search, for ever.
        if (gone === 0) {
          throw new Error(`deleting from ${index}: none of the ${ids.length} documents found went`);
        }
        deleted += gone;
      }
    },

    async refresh() {
      await client.indices.refresh({ index });
    },
  };
}

/**
 * An index that existed before this service's start (made by an older version, another service,
 * or a write that came first and left the mapping to OpenSearch's guess) must map the tenant field
 * as a keyword: every tenant filter is a `term` on it, which matches nothing on the analysed text
 * a dynamic mapping makes. Missing, it is added; mapped otherwise, the start fails saying so.
 */
async function requireTenantField(client: Client, index: string): Promise<void> {
  try {
    await client.indices.putMapping({
      index,
      body: { properties: { [TENANT_FIELD]: { type: 'keyword' } } },
    });
  } catch (err) {
    if (statusOf(err) !== 400) throw err;
    throw new Error(
      `the index ${index} maps "${TENANT_FIELD}" as another type than keyword, so no tenant's ` +
        `documents can be found in it (${errorMessage(err)}); delete it or move its documents ` +
        `to an index with this mapping`,
      { cause: err },
    );
  }
}

/**
 * `query` with `filter` added to every k-NN clause in it (a new object; `query` is untouched).
 * Clauses that fetch other documents by index and id (a terms lookup, more-like-this, percolate)
 * would read past the tenant: refused.
 */
function scopeKnn(query: unknown, filter: Query): unknown {
  if (Array.isArray(query)) return query.map((item) => scopeKnn(item, filter));
  if (query === null || typeof query !== 'object') return query;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (FETCHES_DOCUMENTS.has(key) || (key === 'terms' && isTermsLookup(value))) {
      throw new Error(`a "${key}" query that reads other documents cannot be scoped to a tenant`);
    }
    out[key] = key === 'knn' ? scopeKnnFields(value, filter) : scopeKnn(value, filter);
  }
  return out;
}

const FETCHES_DOCUMENTS = new Set(['more_like_this', 'percolate']);

const isTermsLookup = (terms: unknown) =>
  terms !== null &&
  typeof terms === 'object' &&
  Object.values(terms).some((v) => v !== null && typeof v === 'object' && !Array.isArray(v));

function scopeKnnFields(knn: unknown, filter: Query): unknown {
  if (knn === null || typeof knn !== 'object') return knn;
  return Object.fromEntries(
    Object.entries(knn as Record<string, Record<string, unknown>>).map(([field, clause]) => {
      const own = clause.filter as Query | undefined;
      return [field, { ...clause, filter: { bool: { filter: own ? [filter, own] : [filter] } } }];
    }),
  );
}
