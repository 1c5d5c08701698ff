/** An OpenSearch client from the OPENSEARCH_* settings every service names alike. */
import { Client } from '@opensearch-project/opensearch';

export interface OpenSearchSettings {
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
  return new Client({
    node: settings.OPENSEARCH_URL,
    ...(username && password ? { auth: { username, password } } : {}),
    ...(options.requestTimeout ? { requestTimeout: options.requestTimeout } : {}),
  });
}
