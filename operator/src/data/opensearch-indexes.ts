/**
 * Deletes an install's OpenSearch data: its own indexes, by their exact names (never a
 * wildcard), and its tenant's documents in an index it shares.
 */
import { createOpenSearchClient, tenantIndex, type OpenSearchSettings } from '@pelita/kit';

// A plain index name: no wildcard, comma list or `_all` that could reach other indexes.
const PLAIN_INDEX = /^[a-z0-9][a-z0-9._-]*$/;

/** Deletes each index; one that does not exist is already gone. */
export async function deleteIndexes(
  server: OpenSearchSettings,
  indexes: readonly string[],
): Promise<void> {
  const refused = indexes.filter((index) => !PLAIN_INDEX.test(index));
  if (refused.length > 0) {
    throw new Error(`not plain index names, not deleted: ${refused.join(', ')}`);
  }
  const client = createOpenSearchClient(server, { requestTimeout: 30_000 });
  try {
    for (const index of indexes) {
      try {
        await client.indices.delete({ index });
      } catch (err) {
        if ((err as { meta?: { statusCode?: number } }).meta?.statusCode !== 404) throw err;
      }
    }
  } finally {
    await client.close();
  }
}

/**
 * Deletes every document of `tenant` in the shared `index` (through the tenant-scoped handle: its
 * filter and routing, never another tenant's); the index stays. A missing index has none.
 */
export async function deleteTenantDocuments(
  server: OpenSearchSettings,
  index: string,
  tenant: string,
): Promise<number> {
  if (!PLAIN_INDEX.test(index)) throw new Error(`not a plain index name, not touched: ${index}`);
  const client = createOpenSearchClient(server, { requestTimeout: 30_000 });
  try {
    return await tenantIndex(client, index, { tenant }).deleteWhere({ match_all: {} });
  } catch (err) {
    if ((err as { meta?: { statusCode?: number } }).meta?.statusCode === 404) return 0;
    throw err;
  } finally {
    await client.close();
  }
}
