/**
 * The core backend as deployed, in this process, behind the real user service: tokens signed by
 * the user service, sessions in the real Redis, decisions by a real OPA fed by the real
 * policy-sync (the user service's test platform), and the user service copying user names here.
 * Both share one database, each in its own schema, as an install's single PostgreSQL does.
 */
import { randomBytes } from 'node:crypto';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { freePort, requireEnv } from '@pelita/testenv';
import { createCoreBackend, settingsSchema } from '../../../src';
import {
  ADMIN,
  startPlatform,
  type Platform,
  type PlatformOptions,
} from '../../../../user-service/test/integration/support/platform';

export { ADMIN };

export interface TestUser {
  id: string;
  username: string;
  token: string;
}

export interface CoreStack {
  url: string;
  platform: Platform;
  serviceToken: string;
  /** A call to the core backend; JSON in and out. */
  call(
    method: string,
    path: string,
    token?: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** Logs the first admin in. */
  admin(): Promise<TestUser>;
  /** A new user-service user with the built-in `user` role, logged in, known to the core backend. */
  user(name: string): Promise<TestUser>;
  /** Stops and starts the core backend on the same port (a restart of its pod). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `env`: the core backend's settings; `platformEnv` and `platformOptions`: the user service's
 * (its database, and whether it goes through the test PgBouncer).
 */
export async function startCoreStack(
  env: Record<string, string> = {},
  platformEnv: Record<string, string> = {},
  platformOptions: PlatformOptions = {},
): Promise<CoreStack> {
  const { REDIS_URL, OPENSEARCH_URL } = requireEnv('REDIS_URL', 'OPENSEARCH_URL');
  const serviceToken = randomBytes(24).toString('hex');
  const run = randomBytes(4).toString('hex');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const platform = await startPlatform(
    { ...platformEnv, CORE_BACKEND_URL: url, CORE_BACKEND_TOKEN: serviceToken },
    platformOptions,
  );
  const logger = createLogger({
    name: 'core-backend',
    level: process.env.CORE_TEST_LOG ?? 'silent',
  });
  const settings = loadConfig(settingsSchema, {
    DATABASE_URL: platform.databaseUrl,
    REDIS_URL,
    // The user service's prefix: the sessions its tokens name are there.
    REDIS_KEY_PREFIX: platform.redisKeyPrefix,
    JWT_PUBLIC_KEY: platform.service.keys.publicKey
      .export({ type: 'spki', format: 'pem' })
      .toString(),
    URL_USER: platform.url,
    URL_OPA: platform.opa.url,
    SERVICE_TOKEN: serviceToken,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OPENSEARCH_URL,
    // Indexes of its own per stack: test files run in parallel against one OpenSearch. A
    // document stack names the OCR service's indexes in `env`.
    KNOWLEDGE_INDEX: `core-knowledge-${run}`,
    INDEX_USER_ACTIVITY_LOG: `core-activity-${run}`,
    INDEX_PDF_PARSING_RESULTS: `core-pdf-parsing-results-${run}`,
    INDEX_DOCUMENT_SUMMARIZE: `core-summarize-document-${run}`,
    INDEX_DOCUMENT_SUMMARIZE_CHUNK: `core-summarize-document-chunk-${run}`,
    ...env,
  });
  const start = () => serveInProcess(createCoreBackend(settings, logger), logger, { port });
  let running: RunningServer = await start();

  const call: CoreStack['call'] = (method, path, token, body, headers = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  async function admin(): Promise<TestUser> {
    const { access_token } = await platform.login(ADMIN.email, ADMIN.password);
    const me = await fetch(`${platform.url}/users?limit=200`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    const users = (await me.json()) as { data: Array<{ id: string; username: string }> };
    const row = users.data.find((user) => user.username === ADMIN.username)!;
    return { id: row.id, username: row.username, token: access_token };
  }

  let userRoleId: number | undefined;
  async function user(name: string): Promise<TestUser> {
    const boss = await admin();
    if (userRoleId === undefined) {
      const roles = (await (
        await platform.request('GET', '/roles', { token: boss.token })
      ).json()) as { data: Array<{ id: number; name: string }> };
      userRoleId = roles.data.find((role) => role.name === 'user')!.id;
    }
    const username = `${name}-${randomBytes(3).toString('hex')}`;
    const password = `${name}-pw-1234`;
    const created = await platform.request('POST', '/users', {
      token: boss.token,
      body: {
        email: `${username}@pelita.test`,
        username,
        full_name: `${name} Tester`,
        password,
        role_id: userRoleId,
      },
    });
    if (created.status !== 201) throw new Error(`user ${username}: ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    // The user service copies the name here in the background.
    await Promise.all([platform.service.userNameCopy.idle(), platform.service.syncTrigger.idle()]);
    const { access_token } = await platform.login(`${username}@pelita.test`, password);
    return { id, username, token: access_token };
  }

  return {
    url,
    platform,
    serviceToken,
    call,
    admin,
    user,
    async restart() {
      await running.stop();
      running = await start();
    },
    async stop() {
      await running.stop();
      // The activity index only when it is this stack's: the activity log test names its own.
      const indexes = [settings.KNOWLEDGE_INDEX, settings.INDEX_USER_ACTIVITY_LOG].filter(
        (index, i) => i === 0 || index.endsWith(run),
      );
      await fetch(`${OPENSEARCH_URL}/${indexes.join(',')}?ignore_unavailable=true`, {
        method: 'DELETE',
      });
      await platform.stop();
    },
  };
}

/** The JSON body of a response, after checking its status. */
export async function expectJson<T = Record<string, unknown>>(
  response: Response | Promise<Response>,
  status: number,
): Promise<T> {
  const res = await response;
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
