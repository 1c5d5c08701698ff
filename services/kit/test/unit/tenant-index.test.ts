import type { Client } from '@opensearch-project/opensearch';
import { tenantIndex } from '@pelita/kit';

/** The requests the handle sends, answered with `answers[method]` (a small fake of the client). */
function recordingClient(answers: Record<string, unknown> = {}) {
  const sent: Array<{ method: string; request: Record<string, unknown> }> = [];
  const answer = (method: string) => (request: Record<string, unknown>) => {
    sent.push({ method, request });
    const given = answers[method];
    if (given instanceof Error) return Promise.reject(given);
    return Promise.resolve({ body: given ?? {} });
  };
  const client = {
    search: answer('search'),
    count: answer('count'),
    get: answer('get'),
    index: answer('index'),
    delete: answer('delete'),
    bulk: answer('bulk'),
    indices: { exists: answer('exists'), create: answer('create'), refresh: answer('refresh') },
  };
  return { client: client as unknown as Client, sent };
}

const EMPTY_HITS = { hits: { hits: [], total: { value: 0 } } };
const TENANT_TERM = { term: { tenant: 'acme/one' } };

describe('tenantIndex on a shared index', () => {
  it('sends every search with the tenant routing and the tenant filter around the query', async () => {
    const { client, sent } = recordingClient({ search: EMPTY_HITS });
    const index = tenantIndex(client, 'pelita-knowledge', { tenant: 'acme/one' });
    await index.search({ query: { match: { text: 'tax' } }, size: 5 });
    expect(sent).toEqual([
      {
        method: 'search',
        request: {
          index: 'pelita-knowledge',
          routing: 'acme/one',
          body: {
            size: 5,
            query: { bool: { filter: [TENANT_TERM], must: [{ match: { text: 'tax' } }] } },
          },
        },
      },
    ]);
  });

  it('searches everything of the tenant, and only that, when no query is given', async () => {
    const { client, sent } = recordingClient({ count: { count: 3 } });
    const index = tenantIndex(client, 'pelita-knowledge', { tenant: 'acme/one' });
    expect(await index.count()).toBe(3);
    expect(sent[0]!.request).toEqual({
      index: 'pelita-knowledge',
      routing: 'acme/one',
      body: { query: { bool: { filter: [TENANT_TERM], must: [{ match_all: {} }] } } },
    });
  });

  it("adds the tenant to each k-NN clause's own filter, keeping the caller's", async () => {
    const { client, sent } = recordingClient({ search: EMPTY_HITS });
    const index = tenantIndex(client, 'pelita-knowledge', { tenant: 'acme/one' });
    const access = { term: { workspace_id: 'w1' } };
    await index.search({
      query: { knn: { embedding: { vector: [1, 0], k: 10, filter: access } } },
    });
    await index.search({ query: { knn: { embedding: { vector: [1, 0], k: 10 } } } });
    const queries = sent.map(({ request }) => (request.body as { query: unknown }).query);
    expect(queries).toEqual([
      {
        bool: {
          filter: [TENANT_TERM],
          must: [
            {
              knn: {
                embedding: {
                  vector: [1, 0],
                  k: 10,
                  filter: { bool: { filter: [TENANT_TERM, access] } },
                },
              },
            },
          ],
        },
      },
      {
        bool: {
          filter: [TENANT_TERM],
          must: [
            {
              knn: {
                embedding: { vector: [1, 0], k: 10, filter: { bool: { filter: [TENANT_TERM] } } },
              },
            },
          ],
        },
      },
    ]);
  });

  it('finds k-NN clauses nested in a bool query', async () => {
    const { client, sent } = recordingClient({ search: EMPTY_HITS });
    const index = tenantIndex(client, 'i', { tenant: 'acme/one' });
    await index.search({
      query: { bool: { should: [{ knn: { v: { vector: [1], k: 1 } } }, { match_all: {} }] } },
    });
    const body = sent[0]!.request.body as { query: { bool: { must: unknown[] } } };
    expect(body.query.bool.must[0]).toEqual({
      bool: {
        should: [
          { knn: { v: { vector: [1], k: 1, filter: { bool: { filter: [TENANT_TERM] } } } } },
          { match_all: {} },
        ],
      },
    });
  });

  it('refuses a query that would fetch documents past the tenant (terms lookup, more-like-this)', async () => {
    const { client, sent } = recordingClient({ search: EMPTY_HITS });
    const index = tenantIndex(client, 'i', { tenant: 'acme/one' });
    const lookup = { terms: { resource_id: { index: 'i', id: 'b/two:p1', path: 'resource_id' } } };
    await expect(index.search({ query: { bool: { filter: [lookup] } } })).rejects.toThrow(
      /"terms" query that reads other documents/,
    );
    await expect(
      index.count({ more_like_this: { like: [{ _index: 'i', _id: 'b/two:p1' }] } }),
    ).rejects.toThrow(/more_like_this/);
    expect(sent).toEqual([]);
    await index.search({ query: { terms: { kind: ['chunk', 'summary'], boost: 2 } } });
    expect(sent).toHaveLength(1);
  });

  it('writes the tenant field, its routing and the tenant-prefixed id with every document', async () => {
    const { client, sent } = recordingClient({ bulk: { errors: false, items: [] } });
    const index = tenantIndex(client, 'pelita-knowledge', { tenant: 'acme/one' });
    await index.bulk(
      [
        { index: { id: 'p1', document: { text: 'a', tenant: 'other' } } },
        { create: { id: 'p2', document: { text: 'b' } } },
        { delete: { id: 'p3' } },
      ],
      true,
    );
    await index.put('s1', { summary: 'x' }, 'wait_for');
    expect(sent).toEqual([
      {
        method: 'bulk',
        request: {
          refresh: true,
          body: [
            { index: { _index: 'pelita-knowledge', _id: 'acme/one:p1', routing: 'acme/one' } },
            { text: 'a', tenant: 'acme/one' },
            { create: { _index: 'pelita-knowledge', _id: 'acme/one:p2', routing: 'acme/one' } },
            { text: 'b', tenant: 'acme/one' },
            { delete: { _index: 'pelita-knowledge', _id: 'acme/one:p3', routing: 'acme/one' } },
          ],
        },
      },
      {
        method: 'index',
        request: {
          index: 'pelita-knowledge',
          id: 'acme/one:s1',
          routing: 'acme/one',
          refresh: 'wait_for',
          body: { summary: 'x', tenant: 'acme/one' },
        },
      },
    ]);
  });

  it('answers ids as the service gave them', async () => {
    const { client } = recordingClient({
      search: {
        hits: { hits: [{ _id: 'acme/one:p1', _source: { text: 'a' } }], total: { value: 1 } },
      },
    });
    const index = tenantIndex(client, 'i', { tenant: 'acme/one' });
    expect(await index.search({})).toEqual({
      hits: [{ id: 'p1', source: { text: 'a' } }],
      total: 1,
    });
  });

  it("gets a document by the tenant's id and refuses one stamped with another tenant", async () => {
    const own = recordingClient({ get: { _source: { summary: 'mine', tenant: 'acme/one' } } });
    expect(await tenantIndex(own.client, 's', { tenant: 'acme/one' }).get('t1')).toEqual({
      summary: 'mine',
      tenant: 'acme/one',
    });
    expect(own.sent[0]!.request).toEqual({ index: 's', id: 'acme/one:t1', routing: 'acme/one' });
    const foreign = recordingClient({ get: { _source: { summary: 'theirs', tenant: 'b/two' } } });
    expect(
      await tenantIndex(foreign.client, 's', { tenant: 'acme/one' }).get('t1'),
    ).toBeUndefined();
  });

  it('deletes by query only what the tenant-filtered search found, by prefixed id', async () => {
    let round = 0;
    const deleted = { delete: { result: 'deleted' } };
    const { client, sent } = recordingClient({
      bulk: { errors: false, items: [deleted, deleted] },
    });
    (client as unknown as { search: (r: Record<string, unknown>) => unknown }).search = (
      request,
    ) => {
      sent.push({ method: 'search', request });
      round += 1;
      const hits = round === 1 ? [{ _id: 'acme/one:p1' }, { _id: 'acme/one:p2' }] : [];
      return Promise.resolve({ body: { hits: { hits, total: { value: hits.length } } } });
    };
    const index = tenantIndex(client, 'i', { tenant: 'acme/one' });
    expect(await index.deleteWhere({ term: { resource_id: 'd1' } })).toBe(2);
    // Refreshed first: a document written less than a refresh interval before is found too.
    expect(sent.map((s) => s.method)).toEqual(['refresh', 'search', 'bulk', 'search']);
    expect((sent[1]!.request.body as { query: unknown }).query).toEqual({
      bool: { filter: [TENANT_TERM], must: [{ term: { resource_id: 'd1' } }] },
    });
    expect((sent[2]!.request.body as unknown[])[0]).toEqual({
      delete: { _index: 'i', _id: 'acme/one:p1', routing: 'acme/one' },
    });
  });

  it('throws with the first failed item, but not for a create whose id exists', async () => {
    const conflict = {
      create: { status: 409, error: { type: 'version_conflict_engine_exception' } },
    };
    const refused = { index: { status: 400, error: { type: 'mapper_parsing_exception' } } };
    const skipped = recordingClient({ bulk: { errors: true, items: [conflict] } });
    await expect(
      tenantIndex(skipped.client, 'i', { tenant: 't' }).bulk([
        { create: { id: 'a', document: {} } },
      ]),
    ).resolves.toBeUndefined();
    const failed = recordingClient({ bulk: { errors: true, items: [conflict, refused] } });
    await expect(
      tenantIndex(failed.client, 'i', { tenant: 't' }).bulk([
        { create: { id: 'a', document: {} } },
        { index: { id: 'b', document: {} } },
      ]),
    ).rejects.toThrow(/while writing to i: .*mapper_parsing_exception/);
  });

  it('creates the index with the layout shards and replicas and the tenant as a keyword', async () => {
    const { client, sent } = recordingClient({ exists: false });
    const index = tenantIndex(client, 'pelita-knowledge', { tenant: 't', shards: 2, replicas: 0 });
    expect(await index.create({ mappings: { properties: { text: { type: 'text' } } } })).toBe(
      false,
    );
    expect(sent[1]).toEqual({
      method: 'create',
      request: {
        index: 'pelita-knowledge',
        body: {
          settings: { number_of_shards: 2, number_of_replicas: 0 },
          mappings: { properties: { text: { type: 'text' }, tenant: { type: 'keyword' } } },
        },
      },
    });
  });

  it('refuses an empty tenant', () => {
    expect(() => tenantIndex(recordingClient().client, 'i', { tenant: ' ' })).toThrow(
      'SEARCH_TENANT is empty',
    );
  });
});

describe('tenantIndex on an index of its own (no tenant)', () => {
  it('sends queries, documents and ids as given', async () => {
    const { client, sent } = recordingClient({
      search: EMPTY_HITS,
      bulk: { errors: false, items: [] },
    });
    const index = tenantIndex(client, 'pelita-acme-one-knowledge', {});
    await index.search({ query: { match: { text: 'tax' } } });
    await index.bulk([{ index: { id: 'p1', document: { text: 'a' } } }]);
    expect(sent).toEqual([
      {
        method: 'search',
        request: {
          index: 'pelita-acme-one-knowledge',
          body: { query: { match: { text: 'tax' } } },
        },
      },
      {
        method: 'bulk',
        request: {
          refresh: false,
          body: [{ index: { _index: 'pelita-acme-one-knowledge', _id: 'p1' } }, { text: 'a' }],
        },
      },
    ]);
  });
});
