/**
 * OPA's data API (sync step 5) and the revision marker that tells whether OPA still holds what
 * was pushed (an OPA restart without the file, or anyone replacing `data`, removes it).
 */
import { createHash } from 'node:crypto';
import { describeError, OpaUnavailableError } from './sync-errors';

/** Where the marker lives in OPA: `data.pelita_policy_sync.revision`. Not part of the file. */
const MARKER_PATH = '/v1/data/pelita_policy_sync';

/**
 * The seed's header. OPA's `PUT /v1/data` ignores the content type and stores the JSON body as
 * the new value of the path, so the whole document is replaced as intended (the type only matters
 * to `PATCH`, which would expect a JSON Patch array). Verified against OPA 1.x in the tests.
 */
export const PUSH_CONTENT_TYPE = 'application/json-patch+json';

export interface OpaClient {
  /** Replaces all of OPA's `data` with `text` (the file's content), then records its revision. */
  pushDocument(text: string): Promise<void>;
  /** The revision OPA holds, undefined when it holds none of ours. */
  readRevision(): Promise<string | undefined>;
  /** Resolves when OPA answers its health endpoint. */
  checkHealth(): Promise<void>;
}

/** Content hash of a document's text: equal texts, equal revisions, on every replica. */
export function revisionOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface OpaClientOptions {
  baseUrl: string;
  timeoutMs: number;
  /** OPA's writer token (the sidecar's `system.authz` policy); unset: no Authorization header. */
  token?: string;
}

export function createOpaClient(options: OpaClientOptions): OpaClient {
  const authorization: Record<string, string> = options.token
    ? { authorization: `Bearer ${options.token}` }
    : {};
  async function call(
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${options.baseUrl}${path}`, {
        ...init,
        headers: { ...init.headers, ...authorization },
        method,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      throw new OpaUnavailableError(
        `OPA unreachable for ${method} ${path}: ${describeError(err)}`,
        err,
      );
    }
    if (!res.ok) {
      const detail = (await res.text().catch(() => '')).slice(0, 300);
      throw new OpaUnavailableError(`OPA answered ${res.status} for ${method} ${path}: ${detail}`);
    }
    return res;
  }

  async function put(path: string, body: string, contentType: string): Promise<void> {
    const res = await call('PUT', path, { body, headers: { 'content-type': contentType } });
    await res.body?.cancel();
  }

  return {
    async pushDocument(text) {
      await put('/v1/data', text, PUSH_CONTENT_TYPE);
      // After the document: replacing `data` removed the previous marker.
      await put(MARKER_PATH, JSON.stringify({ revision: revisionOf(text) }), 'application/json');
    },
    async readRevision() {
      const res = await call('GET', `${MARKER_PATH}/revision`);
      const body = (await res.json()) as { result?: unknown };
      return typeof body.result === 'string' ? body.result : undefined;
    },
    async checkHealth() {
      const res = await call('GET', '/health');
      await res.body?.cancel();
    },
  };
}
