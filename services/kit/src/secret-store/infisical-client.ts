/**
 * A client of Infisical's HTTP API: universal-auth login (a machine identity's client id and
 * secret → a short-lived access token, kept until shortly before it expires) and the secrets of
 * one project, environment and path — listed, read, updated. One client for the platform: the
 * license service edits tenants' secrets with it, and services read their settings through it.
 *
 * No value that passes through here (client secret, token, secret values) is ever put in an
 * error message: callers log errors.
 */
import { errorMessage } from '../error-message';

export interface InfisicalClientOptions {
  /** e.g. `https://app.infisical.com` (no trailing slash). */
  baseUrl: string;
  /** The machine identity's universal-auth credentials. */
  clientId: string;
  clientSecret: string;
  /** Per request (default 10 s). */
  timeoutMs?: number;
  /** For tests of token expiry. */
  now?: () => number;
}

/** Where secrets live in Infisical: a project, one of its environments (slug), a folder path. */
export interface SecretScope {
  projectId: string;
  environment: string;
  /** Folder path, `/` when omitted. */
  secretPath?: string;
}

export interface StoredSecret {
  key: string;
  value: string;
  version?: number;
}

/** What failed, without any credential: `status` is Infisical's answer, absent when none came. */
export class SecretStoreError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SecretStoreError';
  }
}

interface RawSecret {
  secretKey: string;
  secretValue: string;
  version?: number;
}

/** Renewed this long before Infisical says the token expires, so a request never races it. */
const EXPIRY_MARGIN_MS = 30_000;

export interface InfisicalClient {
  listSecrets(scope: SecretScope): Promise<StoredSecret[]>;
  getSecret(scope: SecretScope, key: string): Promise<StoredSecret>;
  /** Updates an existing secret's value (404 from Infisical when it does not exist). */
  updateSecret(scope: SecretScope, key: string, value: string): Promise<void>;
}

export function createInfisicalClient(options: InfisicalClientOptions): InfisicalClient {
  if (!/^https?:\/\/[^/]+/.test(options.baseUrl)) {
    throw new Error('InfisicalClient: baseUrl must be an http(s) URL');
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let token: { value: string; until: number } | undefined;
  let pendingLogin: Promise<string> | undefined;

  async function call(path: string, init: RequestInit, what: string): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        ...init,
        headers: { accept: 'application/json', ...init.headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new SecretStoreError(`while ${what}: Infisical did not answer (${errorMessage(err)})`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new SecretStoreError(`while ${what}: Infisical answered ${res.status}`, res.status);
    }
    try {
      return await res.json();
    } catch {
      throw new SecretStoreError(`while ${what}: Infisical answered with no JSON`, res.status);
    }
  }

  async function login(): Promise<string> {
    const body = (await call(
      '/api/v1/auth/universal-auth/login',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: options.clientId, clientSecret: options.clientSecret }),
      },
      'logging in to Infisical',
    )) as { accessToken?: unknown; expiresIn?: unknown };
    if (typeof body.accessToken !== 'string' || typeof body.expiresIn !== 'number') {
      throw new SecretStoreError('while logging in to Infisical: the answer has no access token');
    }
    token = { value: body.accessToken, until: now() + body.expiresIn * 1000 - EXPIRY_MARGIN_MS };
    return body.accessToken;
  }

  /** One login at a time: requests that find no token wait for the same one. */
  async function accessToken(): Promise<string> {
    if (token && token.until > now()) return token.value;
    pendingLogin ??= login().finally(() => {
      pendingLogin = undefined;
    });
    return pendingLogin;
  }

  /** An authorised call; a 401 (token revoked or expired early) logs in again once. */
  async function authorised(path: string, init: RequestInit, what: string): Promise<unknown> {
    const attempt = async () =>
      call(
        path,
        { ...init, headers: { ...init.headers, authorization: `Bearer ${await accessToken()}` } },
        what,
      );
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof SecretStoreError) || err.status !== 401) throw err;
      token = undefined;
      return attempt();
    }
  }

  const query = (scope: SecretScope) =>
    new URLSearchParams({
      projectId: scope.projectId,
      environment: scope.environment,
      secretPath: scope.secretPath ?? '/',
      viewSecretValue: 'true',
      expandSecretReferences: 'false',
    }).toString();
  const toStored = (raw: RawSecret): StoredSecret => ({
    key: raw.secretKey,
    value: raw.secretValue,
    ...(raw.version === undefined ? {} : { version: raw.version }),
  });

  return {
    async listSecrets(scope) {
      const body = (await authorised(
        `/api/v4/secrets?${query(scope)}`,
        { method: 'GET' },
        'listing secrets',
      )) as { secrets?: RawSecret[] };
      if (!Array.isArray(body.secrets)) {
        throw new SecretStoreError('while listing secrets: the answer has no secrets list');
      }
      return body.secrets.map(toStored);
    },
    async getSecret(scope, key) {
      const body = (await authorised(
        `/api/v4/secrets/${encodeURIComponent(key)}?${query(scope)}`,
        { method: 'GET' },
        `reading secret ${key}`,
      )) as { secret?: RawSecret };
      if (!body.secret) throw new SecretStoreError(`while reading secret ${key}: no secret`);
      return toStored(body.secret);
    },
    async updateSecret(scope, key, value) {
      await authorised(
        `/api/v4/secrets/${encodeURIComponent(key)}`,
        {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            projectId: scope.projectId,
            environment: scope.environment,
            secretPath: scope.secretPath ?? '/',
            secretValue: value,
          }),
        },
        `updating secret ${key}`,
      );
    },
  };
}
