/**
 * The two proxies as the core backend uses them: db-proxy for "test connection" and schema
 * listing of a workspace database (connection parameters in its `x-db-*` headers), http-proxy to
 * try an API endpoint (a connection description in its body). The core backend never opens a
 * database connection or calls an external API itself.
 */
import { HttpError } from '@pelita/kit';

export interface DatabaseTarget {
  engine: 'postgresql' | 'mariadb' | 'mysql';
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
}

/** db-proxy's codes, as the core backend answers them (its 401 would read as the caller's token failing). */
const DB_ERRORS: Record<string, { status: number; code: string }> = {
  auth_failed: { status: 422, code: 'database_auth_failed' },
  unknown_database: { status: 422, code: 'database_not_found' },
  permission_denied: { status: 422, code: 'database_permission_denied' },
  host_not_allowed: { status: 403, code: 'database_host_not_allowed' },
  unreachable: { status: 502, code: 'database_unreachable' },
  connection_lost: { status: 502, code: 'database_unreachable' },
  connect_timeout: { status: 504, code: 'database_timeout' },
  statement_timeout: { status: 504, code: 'database_timeout' },
  too_many_connections: { status: 503, code: 'database_busy' },
  pool_exhausted: { status: 503, code: 'database_busy' },
};

async function reach(url: string, init: RequestInit, timeoutMs: number, what: string) {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new HttpError(
      timedOut ? 504 : 503,
      timedOut ? `${what}_timeout` : `${what}_unavailable`,
      timedOut
        ? `The ${what.replace('_', '-')} did not answer in time`
        : `The ${what.replace('_', '-')} is unreachable`,
      { cause: err },
    );
  }
}

/** db-proxy refused our own token: a misconfiguration of the install, not the caller's fault. */
const proxyRefused = () =>
  new HttpError(
    502,
    'db_proxy_refused',
    "db-proxy refused the core backend's service token (DB_PROXY_TOKEN)",
  );

export function createDbProxyClient(baseUrl: string, token: string | undefined, timeoutMs: number) {
  const headers = (target: DatabaseTarget) => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    'x-db-mode': target.engine,
    'x-db-host': target.host,
    'x-db-port': String(target.port),
    'x-db-user': target.username,
    'x-db-password': target.password,
    'x-db-name': target.database,
  });
  async function get<T>(path: string, target: DatabaseTarget): Promise<T> {
    const res = await reach(
      `${baseUrl}${path}`,
      { headers: headers(target) },
      timeoutMs,
      'db_proxy',
    );
    if (res.status === 401) throw proxyRefused();
    const body = (await res.json().catch(() => ({}))) as { error?: string; code?: string };
    if (res.ok) return body as T;
    const mapped = DB_ERRORS[body.code ?? ''] ?? { status: 502, code: 'database_error' };
    throw new HttpError(
      mapped.status,
      mapped.code,
      body.error ?? `db-proxy answered ${res.status}`,
    );
  }
  return {
    /** One statement, read-only (db-proxy refuses anything that writes and rolls back). */
    async query(
      target: DatabaseTarget,
      sql: string,
    ): Promise<{ result: Array<Record<string, unknown>>; truncated?: true }> {
      const res = await reach(
        `${baseUrl}/execute`,
        {
          method: 'POST',
          headers: {
            ...headers(target),
            'x-db-read-only': 'true',
            'content-type': 'application/json',
          },
          body: JSON.stringify({ query: sql }),
        },
        timeoutMs,
        'db_proxy',
      );
      if (res.status === 401) throw proxyRefused();
      const body = (await res.json().catch(() => ({}))) as {
        error?: string;
        code?: string;
        result?: Array<Record<string, unknown>>;
        truncated?: true;
      };
      if (res.ok)
        return { result: body.result ?? [], ...(body.truncated ? { truncated: true } : {}) };
      const mapped = DB_ERRORS[body.code ?? ''] ?? { status: 422, code: 'database_query_failed' };
      throw new HttpError(
        mapped.status,
        mapped.code,
        body.error ?? `db-proxy answered ${res.status}`,
      );
    },
    check: (target: DatabaseTarget) => get<{ status: string }>('/check-connection', target),
    tables: (target: DatabaseTarget) =>
      get<{ tables: Record<string, Array<{ column_name: string; data_type: string }>> }>(
        '/tables',
        target,
      ),
  };
}

export interface ApiConnection {
  host: string;
  auth?:
    | { type: 'basic'; user: string; password: string }
    | { type: 'bearer'; token: string }
    | { type: 'jwt'; user: string; password: string; loginPath: string };
  headers?: Record<string, string>;
  endpoint: {
    path: string;
    method: string;
    params?: Array<{ key: string; value: string }>;
    body?: Record<string, unknown>;
  };
}

export interface ProxiedAnswer {
  status: number;
  contentType: string | null;
  body: string;
  truncated: boolean;
}

/** Most of an answer's body kept (characters). */
const BODY_CAP = 100_000;

export function createHttpProxyClient(
  baseUrl: string,
  token: string | undefined,
  timeoutMs: number,
) {
  return {
    async call(connection: ApiConnection): Promise<ProxiedAnswer> {
      const res = await reach(
        `${baseUrl}/proxy`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({ connection }),
        },
        timeoutMs,
        'http_proxy',
      );
      const text = await res.text();
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        body: text.slice(0, BODY_CAP),
        truncated: text.length > BODY_CAP,
      };
    },
  };
}

export type DbProxyClient = ReturnType<typeof createDbProxyClient>;
export type HttpProxyClient = ReturnType<typeof createHttpProxyClient>;
