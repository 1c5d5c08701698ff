/**
 * deleteWhere on the real OpenSearch with documents written without an id (the activity log
 * writes so): they carry none of the tenant prefix, and deleting them under a prefixed id found
 * nothing, so the loop searched and "deleted" the same documents for ever. And documents written
 * just before the deletion, not yet made visible to search by a refresh.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { tenantIndex } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');

describe('deleteWhere in an index shared by tenants', () => {
  const index = `kit-tenant-delete-${randomBytes(4).toString('hex')}`;
  const client = new Client({ node: OPENSEARCH_URL });
  const a = tenantIndex(client, index, { tenant: 'ns-a/acme' });
  const b = tenantIndex(client, index, { tenant: 'ns-b/acme' });

  afterAll(async () => {
    await client.indices.delete({ index }).catch(() => undefined);
    await client.close();
  });

  it("removes a tenant's documents written with and without ids, and leaves the other's", async () => {
    await a.create({ mappings: { properties: { text: { type: 'text' } } } });
    for (const tenant of [a, b]) {
      await tenant.put(undefined, { text: 'no id' });
      await tenant.put(undefined, { text: 'no id either' });
      await tenant.put('p1', { text: 'with an id' }, true);
    }
    expect(await a.deleteWhere({ match_all: {} })).toBe(3);
    expect(await a.count()).toBe(0);
    expect(await b.count()).toBe(3);
  }, 20_000);

  it('removes documents written just before, not yet refreshed', async () => {
    const unrefreshed = `${index}-unrefreshed`;
    const tenant = tenantIndex(client, unrefreshed, { tenant: 'ns-a/acme' });
    try {
      // No periodic refresh: only an explicit one makes the writes searchable.
      await tenant.create({
        settings: { refresh_interval: '-1' },
        mappings: { properties: { text: { type: 'text' } } },
      });
      await tenant.put('s1', { text: 'a chunk summary written a moment ago' });
      await tenant.put(undefined, { text: 'and one without an id' });
      expect(await tenant.deleteWhere({ match_all: {} })).toBe(2);
      await tenant.refresh();
      expect(await tenant.count()).toBe(0);
    } finally {
      await client.indices.delete({ index: unrefreshed }).catch(() => undefined);
    }
  }, 20_000);
});
