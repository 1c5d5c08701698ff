/**
 * The user service as deployed, in this process: its own database, the real Redis, a real OPA
 * loaded with policies/, and the real policy-sync (services/policy-sync) between them, so a
 * change made through the API reaches OPA's decisions exactly as in production.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLogger,
  loadConfig,
  serveInProcess,
  type PasswordHasher,
  type RunningServer,
} from '@pelita/kit';
import { testPasswords } from '@pelita/kit/testing';
import { requireEnv, startTcpLink, type TcpLink } from '@pelita/testenv';
import {
  createPolicySyncService,
  settingsSchema as policySyncSettings,
  type PolicySyncService,
} from '@pelita/policy-sync';
import { createUserService, settingsSchema, type UserService } from '../../../src';
import { createTestDatabase, throughPgBouncer, type TestDatabase } from './database';
import { LogCapture } from './log-capture';
import { sampleValue } from './metrics';
import { freePort, startOpa, type OpaProcess } from './opa';

// Unique per test file: test files read their mail from the one SMTP receiver's maildir by
// recipient.
export const ADMIN = {
  email: `admin-${randomBytes(4).toString('hex')}@pelita.test`,
  password: 'first-admin-pw-5d1c',
  username: 'admin',
};

export interface Platform {
  url: string;
  service: UserService;
  policySync: PolicySyncService;
  opa: OpaProcess;
  logs: LogCapture;
  databaseUrl: string;
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  login(email: string, password: string): Promise<{ access_token: string; refresh_token: string }>;
  /** The Redis channel this platform's policy-sync replicas share. */
  syncChannel: string;
  /** The REDIS_KEY_PREFIX of its keys; a core backend behind it checks sessions under it. */
  redisKeyPrefix: string;
  /** Kills OPA and starts it again on the same port, empty but for what it loads at start. */
  restartOpa(): Promise<void>;
  /**
   * The user service's way to policy-sync (POLICY_SYNC_URL goes through it): cut, policy-sync is
   * unreachable but keeps running, so nothing reaches OPA but what the user service sends later.
   */
  policySyncLink: TcpLink;
  /** The current value of one sample of this service's `/metrics` (0 when it has none yet). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** Asks OPA directly whether the user may call `method path`. */
  allows(user: string, method: string, path: string): Promise<boolean>;
  stop(): Promise<void>;
}

export interface PlatformOptions {
  /** A database made by the caller (dropped at stop); a fresh one by default. */
  database?: TestDatabase;
  /** The user service reaches it through the test PgBouncer (transaction mode). */
  pooled?: boolean;
  /**
   * How the service hashes passwords: scrypt at a test cost (N = 2^10) by default, as every user
   * made and every login would otherwise cost 128 MiB and 0.4 s of CPU. Tests of password storage
   * pass the production hasher (`scryptPasswords()`).
   */
  passwords?: PasswordHasher;
}

export async function startPlatform(
  env: Record<string, string> = {},
  options: PlatformOptions = {},
): Promise<Platform> {
  const { REDIS_URL, SMTP_HOST, SMTP_PORT } = requireEnv('REDIS_URL', 'SMTP_HOST', 'SMTP_PORT');
  const database: TestDatabase = options.database ?? (await createTestDatabase());
  // The shared volume of the policy-sync pod: policy-sync writes data.json, OPA loads it at start.
  const shareDir = mkdtempSync(join(tmpdir(), 'user-service-share-'));
  let opa = await startOpa({ dataDir: shareDir });
  const syncChannel = `pelita:user-service-test:${randomBytes(4).toString('hex')}`;
  // Every platform its own keys in the shared Redis (as an installation has): sessions, login
  // limits and the per-address counters of test files running in parallel never meet.
  const redisKeyPrefix =
    env.REDIS_KEY_PREFIX ?? `user-service-test:${randomBytes(4).toString('hex')}:`;
  const policySyncPort = await freePort();
  // The user service reaches policy-sync through a link a test can cut (see `policySyncLink`).
  const linkPort = await freePort();
  const policySyncLink = await startTcpLink(linkPort, policySyncPort);
  const logs = new LogCapture();
  const logger = createLogger({ name: 'user-service', level: 'debug', destination: logs });
  const settings = loadConfig(settingsSchema, {
    DATABASE_URL: options.pooled ? throughPgBouncer(database.url) : database.url,
    REDIS_URL,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    URL_OPA: opa.url,
    POLICY_SYNC_URL: `http://127.0.0.1:${linkPort}`,
    SMTP_HOST,
    SMTP_PORT,
    FRONTEND_URL: 'https://app.pelita.test',
    FIRST_ADMIN_EMAIL: ADMIN.email,
    FIRST_ADMIN_PASSWORD: ADMIN.password,
    FIRST_ADMIN_USERNAME: ADMIN.username,
    // As an installation has it: the user service refuses to start without a signing key.
    JWT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
    // Every test logs in from 127.0.0.1: the per-address limit would count all the failures of
    // a file (the fuzz test's too) together. It is tested on its own.
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
    // Every test calls from 127.0.0.1: only the test of the limit itself sets one (with
    // addresses of its own).
    AUTH_RATE_LIMIT: '1000000',
    ...env,
  });
  const service = createUserService(settings, logger, {
    passwords: options.passwords ?? testPasswords(),
  });
  // Started (migrations, first admin) before policy-sync below pulls from it.
  const running: RunningServer = await serveInProcess(service, logger);

  const syncLogger = createLogger({ name: 'policy-sync', level: 'silent' });
  const policySync = createPolicySyncService(
    loadConfig(policySyncSettings, {
      URL_USER: running.url,
      URL_OPA: opa.url,
      POLICY_DATA_FILE: join(shareDir, 'data.json'),
      // Replicas of this platform's policy-sync (see replicas.test.ts) meet on this channel.
      REDIS_URL,
      SYNC_CHANNEL: syncChannel,
      RESYNC_INTERVAL_MS: '0',
      OPA_PROBE_INTERVAL_MS: '0',
      ...(env.OPEN_API_TOKEN ? { USER_SERVICE_TOKEN: env.OPEN_API_TOKEN } : {}),
    }),
    syncLogger,
  );
  const syncServer = await serveInProcess(policySync, syncLogger, { port: policySyncPort });

  const request: Platform['request'] = (method, path, options = {}) =>
    fetch(`${running.url}${path}`, {
      method,
      headers: {
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });

  return {
    url: running.url,
    service,
    policySync,
    policySyncLink,
    syncChannel,
    redisKeyPrefix,
    get opa() {
      return opa;
    },
    logs,
    databaseUrl: database.url,
    request,
    async login(email, password) {
      const res = await request('POST', '/auth/login', { body: { email, password } });
      if (res.status !== 200)
        throw new Error(`login of ${email} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { access_token: string; refresh_token: string };
    },
    async metric(name, labels) {
      return sampleValue(await (await request('GET', '/metrics')).text(), name, labels);
    },
    async restartOpa() {
      await opa.stop();
      opa = await startOpa({ dataDir: shareDir, port: opa.port });
    },
    async allows(user, method, path) {
      const res = await fetch(`${opa.url}/v1/data/pelita/authz/allow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: { user, method, path } }),
      });
      return ((await res.json()) as { result?: unknown }).result === true;
    },
    async stop() {
      // Each stop drains its server, then stops its service.
      await syncServer.stop();
      await policySyncLink.close();
      await running.stop();
      await opa.stop();
      rmSync(shareDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}
