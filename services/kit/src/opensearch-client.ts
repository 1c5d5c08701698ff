/** An OpenSearch client from the OPENSEARCH_* settings every service names alike. */
import type { API, Client } from '@opensearch-project/opensearch';
import type * as OpenSearch from '@opensearch-project/opensearch';
import { z } from 'zod';
import { httpUrl, optionalSetting } from './config';
import { errorMessage } from './error-message';

// Kubernetes and shells set a variable to '' as often as they leave it out: both mean unset.
const optionalCount = (min: number, max: number) =>
  z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.coerce.number().int().min(min).max(max).optional(),
  );

/**
 * How the install's indexes are laid out (tenant-index.ts): SEARCH_TENANT when they are shared
 * with other installs, and the primary shards and replicas of an index the service creates
 * (unset: the server's defaults).
 */
export const searchLayoutSettings = {
  SEARCH_TENANT: optionalSetting,
  INDEX_SHARDS: optionalCount(1, 1024),
  INDEX_REPLICAS: optionalCount(0, 16),
};

export interface SearchLayoutSettings {
  SEARCH_TENANT?: string | undefined;
  INDEX_SHARDS?: number | undefined;
  INDEX_REPLICAS?: number | undefined;
}

/** The settings, to spread into a service's schema. */
export const openSearchSettings = {
  OPENSEARCH_URL: httpUrl,
  OPENSEARCH_USERNAME: optionalSetting,
  OPENSEARCH_PASSWORD: optionalSetting,
  ...searchLayoutSettings,
};

export interface OpenSearchSettings extends SearchLayoutSettings {
  OPENSEARCH_URL: string;
  OPENSEARCH_USERNAME?: string | undefined;
  OPENSEARCH_PASSWORD?: string | undefined;
}

/** Basic authentication only when both halves are set; `requestTimeout` in milliseconds. */
export function createOpenSearchClient(
  settings: OpenSearchSettings,
  options: { requestTimeout?: number } = {},
): Client {
  const { OPENSEARCH_USERNAME: username, OPENSEARCH_PASSWORD: password } = settings;
  // Loaded here, when a service builds its dependencies at start, not by every importer of the kit.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require('@opensearch-project/opensearch') as typeof OpenSearch;
  return new Client({
    node: settings.OPENSEARCH_URL,
    ...(username && password ? { auth: { username, password } } : {}),
    ...(options.requestTimeout ? { requestTimeout: options.requestTimeout } : {}),
  });
}

/**
 * Creates `index` with `body` (its mappings and settings) unless it exists, and answers whether
 * it existed already (callers may then check or extend its mapping). Another replica creating it
 * between the check and the create is fine.
 */
export async function createIndexUnlessExists(
  client: Client,
  index: string,
  body: API.Indices_Create_RequestBody,
): Promise<boolean> {
  if ((await client.indices.exists({ index })).body) return true;
  try {
    await client.indices.create({ index, body });
  } catch (err) {
    if (!errorMessage(err).includes('resource_already_exists')) throw err;
  }
  return false;
}
