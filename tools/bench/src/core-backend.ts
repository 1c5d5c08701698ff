/**
 * The core backend in the benchmark's process, on the test servers, with a schema and a
 * knowledge index of its own (dropped on stop). Access decisions are allowed (OPA is not what is
 * measured); the caller's token is signed here with a key pair standing in for the user
 * service's, its session put in Redis, its user copied in as the user service would.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createCoreBackend, settingsSchema, type Settings } from '@pelita/core-backend';
import {
  ACCESS_TOKEN_ALGORITHM,
  ACCESS_TOKEN_ISSUER,
  createLogger,
  loadConfig,
  serveInProcess,
  sessionKey,
} from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import pg from 'pg';

export interface BenchCore {
  url: string;
  settings: Settings;
  /** The schema of its tables (for a benchmark that fills them directly). */
  schema: string;
  /** `Authorization` header of the bench user. */
  auth: { authorization: string };
  /** A new workspace of the bench user; its id. */
  workspace(name: string): Promise<string>;
  /** A new app key of the workspace; the key. */
  appKey(workspaceId: string): Promise<string>;
  stop(): Promise<void>;
}

export async function json<T>(res: Response | Promise<Response>, what: string): Promise<T> {
  const answer = await res;
  if (!answer.ok) throw new Error(`${what} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as T;
}

export async function startBenchCore(settings: Record<string, string>): Promise<BenchCore> {
  const deps = requireEnv('POSTGRES_URL', 'REDIS_URL', 'OPENSEARCH_URL');
  const run = randomBytes(4).toString('hex');
  const schema = `bench_core_${run}`;
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serviceToken = randomBytes(24).toString('hex');
  const logger = createLogger({ name: 'core-backend', level: 'warn' });
  const loaded = loadConfig(settingsSchema, {
    DATABASE_URL: deps.POSTGRES_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL: deps.REDIS_URL,
    OPENSEARCH_URL: deps.OPENSEARCH_URL,
    JWT_PUBLIC_KEY: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    SERVICE_TOKEN: serviceToken,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    KNOWLEDGE_INDEX: `bench-core-knowledge-${run}`,
    INDEX_USER_ACTIVITY_LOG: `bench-core-activity-${run}`,
    ...settings,
  });
  const core = await serveInProcess(
    createCoreBackend(loaded, logger, { decide: () => Promise.resolve(true) }),
    logger,
  );
  const redis = new Redis(deps.REDIS_URL);
  const stop = async () => {
    await core.stop();
    redis.disconnect();
    const client = new pg.Client({ connectionString: deps.POSTGRES_URL });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
    for (const index of [loaded.KNOWLEDGE_INDEX, loaded.INDEX_USER_ACTIVITY_LOG]) {
      await fetch(`${deps.OPENSEARCH_URL}/${index}`, { method: 'DELETE' });
    }
  };
  try {
    const userId = randomUUID();
    await json(
      fetch(`${core.url}/utils/update-user-name/${userId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${serviceToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'bench' }),
      }),
      'PUT /utils/update-user-name',
    );
    const jti = randomUUID();
    await redis.set(sessionKey(jti), userId, 'EX', 3600);
    const auth = {
      authorization: `Bearer ${jwt.sign({ username: 'bench' }, keys.privateKey, {
        algorithm: ACCESS_TOKEN_ALGORITHM,
        issuer: ACCESS_TOKEN_ISSUER,
        subject: userId,
        jwtid: jti,
        expiresIn: 3600,
      })}`,
    };
    const post = <T>(path: string, body: unknown) =>
      json<T>(
        fetch(`${core.url}${path}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
        `POST ${path}`,
      );
    return {
      url: core.url,
      settings: loaded,
      schema,
      auth,
      workspace: async (name) => (await post<{ id: string }>('/api/workspaces', { name })).id,
      appKey: async (workspaceId) =>
        (await post<{ key: string }>(`/api/workspaces/${workspaceId}/app-keys`, { name: 'bench' }))
          .key,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
