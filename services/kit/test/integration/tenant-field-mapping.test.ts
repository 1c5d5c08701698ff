/**
 * A shared index that existed before a service started: its tenant field must be a keyword for
 * the tenant filters to match. On the real OpenSearch: an index without the field gets it, one
 * whose field OpenSearch guessed from a first write (text) makes `create` fail with a reason.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { tenantIndex } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
const MAPPINGS = { properties: { text: { type: 'text' as const } } };
/** The field every stored document names its tenant in. */
const TENANT_FIELD = 'tenant';

describe('the tenant field of an index that already exists', () => {
  const prefix = `kit-tenant-field-${randomBytes(4).toString('hex')}`;
  const client = new Client({ node: OPENSEARCH_URL });

  afterAll(async () => {
    await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
    await client.close();
  });

  it('is added to an index made without it, and tenant filters then work', async () => {
    const index = `${prefix}-without`;
    await client.indices.create({ index, body: { mappings: MAPPINGS } });
    const acme = tenantIndex(client, index, { tenant: 'ns-a/acme' });
    expect(await acme.create({ mappings: MAPPINGS })).toBe(true);
    await acme.put('p1', { text: 'hello' }, true);
    expect(await acme.count()).toBe(1);
    expect(await tenantIndex(client, index, { tenant: 'ns-b/acme' }).count()).toBe(0);
  }, 20_000);

  it('makes create fail, naming the index, when a first write left it as text', async () => {
    const index = `${prefix}-guessed`;
    // What a document written before the index was created leaves: a dynamic mapping.
    await client.index({
      index,
      body: { text: 'early', [TENANT_FIELD]: 'ns-a/acme' },
      refresh: true,
    });
    const acme = tenantIndex(client, index, { tenant: 'ns-a/acme' });
    await expect(acme.create({ mappings: MAPPINGS })).rejects.toThrow(
      new RegExp(`the index ${index} maps "${TENANT_FIELD}" as another type than keyword`),
    );
  }, 20_000);

  it('leaves an index made by create as it is', async () => {
    const index = `${prefix}-made`;
    const acme = tenantIndex(client, index, { tenant: 'ns-a/acme' });
    expect(await acme.create({ mappings: MAPPINGS })).toBe(false);
    expect(await acme.create({ mappings: MAPPINGS })).toBe(true);
  }, 20_000);
});
