/**
 * Services as separate processes, as deployed (each from its dist/main.js, OPA from OPA_BIN),
 * all exporting their spans to one OTLP receiver of the test, their JSON log lines collected;
 * and the platform every traced path starts from: OPA (exporting over OTLP/HTTP itself), the
 * user service and policy-sync, with a first administrator. Used by the trace tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { POLICIES_DIR, freePort, requireEnv, stopChild, waitFor } from '@pelita/testenv';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
import { createDatabase } from './test-database';

const ROOT = path.resolve(__dirname, '../../..');

/** OTLP SpanKind values. */
export const INTERNAL = 1;
export const SERVER = 2;
export const CLIENT = 3;
export const CONSUMER = 5;

export interface Running {
  name: string;
  child: ChildProcess;
  url: string;
  /** Parsed JSON log lines (stdout), in order. */
  logs: Array<Record<string, unknown>>;
  output: string[];
}

export interface TracedProcesses {
  receiver: OtlpReceiver;
  /** A scratch directory removed by `stop`. */
  dir: string;
  running: Running[];
  byName(name: string): Running;
  /** Starts `command` and waits until `readyPath` answers 2xx on `port`. */
  start(
    name: string,
    command: string,
    args: string[],
    env: Record<string, string>,
    port: number,
    readyPath: string,
  ): Promise<Running>;
  /** A Node service from `services/<service>/dist/<entry>`, traced under `name`. */
  startService(
    name: string,
    entry: string,
    env: Record<string, string>,
    readyPath?: string,
  ): Promise<Running>;
  /** The OTEL settings of a Node service: export soon, to the receiver, under its own name. */
  tracing(name: string): Record<string, string>;
  /** Stops every process (last started first), the receiver, and removes `dir`. */
  stop(): Promise<void>;
}

export async function startTracedProcesses(): Promise<TracedProcesses> {
  const receiver = await startOtlpReceiver();
  const dir = mkdtempSync(path.join(tmpdir(), 'pelita-traces-'));
  const running: Running[] = [];

  const tracing = (name: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: name,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    LOG_LEVEL: 'debug',
  });

  async function start(
    name: string,
    command: string,
    args: string[],
    env: Record<string, string>,
    port: number,
    readyPath: string,
  ): Promise<Running> {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const one: Running = { name, child, url: `http://127.0.0.1:${port}`, logs: [], output: [] };
    running.push(one);
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        one.output.push(line);
        try {
          one.logs.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a JSON log line (OPA's, a stack trace)
        }
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    await waitFor(
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`${name} exited ${child.exitCode}: ${one.output.slice(-20).join('\n')}`);
        }
        return (await fetch(`${one.url}${readyPath}`)).ok;
      },
      {
        what: `${name} on ${one.url}${readyPath} (built? npx tsc -b services/...)`,
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );
    return one;
  }

  return {
    receiver,
    dir,
    running,
    byName(name) {
      const found = running.find((p) => p.name === name);
      if (!found) throw new Error(`no process ${name}`);
      return found;
    },
    start,
    async startService(name, entry, env, readyPath = '/ready') {
      const port = env.PORT ? Number(env.PORT) : await freePort();
      return start(
        name,
        process.execPath,
        [path.join(ROOT, 'services', entry)],
        { ...tracing(name), ...env, PORT: String(port) },
        port,
        readyPath,
      );
    },
    tracing,
    async stop() {
      for (const one of [...running].reverse()) await stopChild(one.child);
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface AuthPlatform {
  opa: Running;
  user: Running;
  sync: Running;
  /** The user service's database (the core backend's too: each has its own schema). */
  databaseUrl: string;
  /** Before the user service's Redis keys (the sessions another service checks). */
  redisKeyPrefix: string;
  /** The public half of the user service's token signing key. */
  publicKey: KeyObject;
  admin: { email: string; password: string; username: string };
  /** The administrator's access token. */
  login(): Promise<string>;
  drop(): Promise<void>;
}

/**
 * OPA as in policy-sync's pod (the repository's policies, exporting its spans over OTLP/HTTP
 * protobuf), the user service with a first administrator, and policy-sync feeding OPA.
 * `userEnv` adds settings of the user service.
 */
export async function startAuthPlatform(
  processes: TracedProcesses,
  userEnv: Record<string, string> = {},
): Promise<AuthPlatform> {
  const env = requireEnv('OPA_BIN', 'REDIS_URL', 'SMTP_HOST', 'SMTP_PORT');
  const run = randomBytes(3).toString('hex');
  const admin = {
    email: `admin-${randomBytes(4).toString('hex')}@pelita.test`,
    password: 'traces-admin-pw-2b9e',
    username: 'admin',
  };
  const opaConfig = path.join(processes.dir, 'opa.yaml');
  writeFileSync(
    opaConfig,
    [
      'distributed_tracing:',
      '  type: http',
      `  address: ${processes.receiver.address}`,
      '  sample_percentage: 100',
      '  service_name: opa',
      '',
    ].join('\n'),
  );
  const shareDir = path.join(processes.dir, 'share');
  mkdirSync(shareDir);
  const opaPort = await freePort();
  const opa = await processes.start(
    'opa',
    env.OPA_BIN,
    [
      'run',
      '--server',
      '--skip-version-check',
      `--addr=127.0.0.1:${opaPort}`,
      `--config-file=${opaConfig}`,
      '--ignore=*_test.rego',
      '--ignore=.*',
      POLICIES_DIR,
      shareDir,
    ],
    {},
    opaPort,
    '/health',
  );

  const db = await createDatabase();
  const syncPort = await freePort();
  const redisKeyPrefix = `traces:${run}:`;
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const user = await processes.startService(
    'user-service',
    'user-service/dist/main.js',
    {
      DATABASE_URL: db.url,
      REDIS_URL: env.REDIS_URL,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      URL_OPA: opa.url,
      POLICY_SYNC_URL: `http://127.0.0.1:${syncPort}`,
      SMTP_HOST: env.SMTP_HOST,
      SMTP_PORT: env.SMTP_PORT,
      FRONTEND_URL: 'https://app.pelita.test',
      FIRST_ADMIN_EMAIL: admin.email,
      FIRST_ADMIN_PASSWORD: admin.password,
      FIRST_ADMIN_USERNAME: admin.username,
      JWT_PRIVATE_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      ...userEnv,
    },
    '/health',
  );
  const sync = await processes.startService('policy-sync', 'policy-sync/dist/main.js', {
    PORT: String(syncPort),
    URL_USER: user.url,
    URL_OPA: opa.url,
    POLICY_DATA_FILE: path.join(shareDir, 'data.json'),
    REDIS_URL: env.REDIS_URL,
    SYNC_CHANNEL: `pelita:traces:${run}`,
    // No timer-started passes: a trigger merged into one would push under that pass's trace.
    RESYNC_INTERVAL_MS: '0',
    OPA_PROBE_INTERVAL_MS: '0',
  });
  await waitFor(async () => (await fetch(`${user.url}/ready`)).ok, {
    what: 'the user service ready',
    timeoutMs: 30_000,
  });
  return {
    opa,
    user,
    sync,
    databaseUrl: db.url,
    redisKeyPrefix,
    publicKey: keys.publicKey,
    admin,
    async login() {
      const res = await fetch(`${user.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: admin.email, password: admin.password }),
      });
      if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    drop: () => db.drop(),
  };
}

/** The spans of `service` and `kind` in `trace` whose parent is one of `parents`. */
export function childOf(
  trace: ReceivedSpan[],
  parents: ReceivedSpan[],
  service: string,
  kind: number,
): ReceivedSpan[] {
  const ids = new Set(parents.map((p) => p.spanId));
  return trace.filter(
    (s) => s.serviceName === service && s.kind === kind && ids.has(s.parentSpanId),
  );
}

/** Every span of the trace below `roots`, the roots included (through any service). */
export function descendants(trace: ReceivedSpan[], roots: ReceivedSpan[]): ReceivedSpan[] {
  const found = [...roots];
  for (let grew = true; grew;) {
    const ids = new Set(found.map((s) => s.spanId));
    const more = trace.filter((s) => ids.has(s.parentSpanId) && !found.includes(s));
    found.push(...more);
    grew = more.length > 0;
  }
  return found;
}
