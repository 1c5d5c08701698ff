// One trace across the hops of a role change: the user service's outbox calls policy-sync,
// which pushes the new role data to OPA. Each runs as its own process, as deployed (the user
// service and policy-sync from their dist/main.js, OPA from OPA_BIN), all exporting to one
// OTLP receiver; their log lines carry the same trace id.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { POLICIES_DIR, freePort, requireEnv, stopChild, waitFor } from '@pelita/testenv';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../observability/otlp-receiver';
import { createDatabase } from '../observability/test-database';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = {
  email: `admin-${randomBytes(4).toString('hex')}@pelita.test`,
  password: 'traces-admin-pw-2b9e',
  username: 'admin',
};
const SERVER = 2;
const CLIENT = 3;

interface Running {
  name: string;
  child: ChildProcess;
  url: string;
  /** Parsed JSON log lines (stdout), in order. */
  logs: Array<Record<string, unknown>>;
  output: string[];
}

const processes: Running[] = [];
let receiver: OtlpReceiver;
let dir: string;
let database: { drop(): Promise<void> } | undefined;

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
  const running: Running = { name, child, url: `http://127.0.0.1:${port}`, logs: [], output: [] };
  processes.push(running);
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      running.output.push(line);
      try {
        running.logs.push(JSON.parse(line) as Record<string, unknown>);
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
        throw new Error(
          `${name} exited ${child.exitCode}: ${running.output.slice(-20).join('\n')}`,
        );
      }
      return (await fetch(`${running.url}${readyPath}`)).ok;
    },
    {
      what: `${name} on ${running.url}${readyPath} (built? npx tsc -b services/${name})`,
      timeoutMs: 60_000,
      intervalMs: 100,
    },
  );
  return running;
}

/** The OTEL settings of a Node service: export soon, to the receiver, under its own name. */
function tracing(name: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: name,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    LOG_LEVEL: 'debug',
  };
}

beforeAll(async () => {
  const env = requireEnv('OPA_BIN', 'REDIS_URL', 'SMTP_HOST', 'SMTP_PORT');
  receiver = await startOtlpReceiver();
  dir = mkdtempSync(path.join(tmpdir(), 'pelita-traces-'));
  const run = randomBytes(3).toString('hex');

  // OPA as in policy-sync's pod, exporting its spans over OTLP/HTTP (protobuf).
  const opaConfig = path.join(dir, 'opa.yaml');
  writeFileSync(
    opaConfig,
    [
      'distributed_tracing:',
      '  type: http',
      `  address: ${receiver.address}`,
      '  sample_percentage: 100',
      '  service_name: opa',
      '',
    ].join('\n'),
  );
  const shareDir = path.join(dir, 'share');
  mkdirSync(shareDir);
  const opaPort = await freePort();
  const opa = await start(
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
  database = db;
  const userPort = await freePort();
  const syncPort = await freePort();
  const user = await start(
    'user-service',
    process.execPath,
    [path.join(ROOT, 'services/user-service/dist/main.js')],
    {
      ...tracing('user-service'),
      PORT: String(userPort),
      DATABASE_URL: db.url,
      REDIS_URL: env.REDIS_URL,
      REDIS_KEY_PREFIX: `traces:${run}:`,
      URL_OPA: opa.url,
      POLICY_SYNC_URL: `http://127.0.0.1:${syncPort}`,
      SMTP_HOST: env.SMTP_HOST,
      SMTP_PORT: env.SMTP_PORT,
      FRONTEND_URL: 'https://app.pelita.test',
      FIRST_ADMIN_EMAIL: ADMIN.email,
      FIRST_ADMIN_PASSWORD: ADMIN.password,
      FIRST_ADMIN_USERNAME: ADMIN.username,
      JWT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
    },
    userPort,
    '/health',
  );
  await start(
    'policy-sync',
    process.execPath,
    [path.join(ROOT, 'services/policy-sync/dist/main.js')],
    {
      ...tracing('policy-sync'),
      PORT: String(syncPort),
      URL_USER: user.url,
      URL_OPA: opa.url,
      POLICY_DATA_FILE: path.join(shareDir, 'data.json'),
      REDIS_URL: env.REDIS_URL,
      SYNC_CHANNEL: `pelita:traces:${run}`,
      // No timer-started passes: a trigger merged into one would push under that pass's trace.
      RESYNC_INTERVAL_MS: '0',
      OPA_PROBE_INTERVAL_MS: '0',
    },
    syncPort,
    '/ready',
  );
  await waitFor(async () => (await fetch(`${user.url}/ready`)).ok, {
    what: 'the user service ready',
    timeoutMs: 30_000,
  });
}, 120_000);

afterAll(async () => {
  for (const running of processes.reverse()) await stopChild(running.child);
  await receiver?.close();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A span of `service` and `kind` in `trace` whose parent is one of `parents`. */
function childOf(
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

/** Every span of the trace below `root` (descendants, through any service). */
function descendants(trace: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const found = [root];
  for (let grew = true; grew;) {
    const ids = new Set(found.map((s) => s.spanId));
    const more = trace.filter((s) => ids.has(s.parentSpanId) && !found.includes(s));
    found.push(...more);
    grew = more.length > 0;
  }
  return found;
}

it('follows a role change from the user service through policy-sync into OPA in one trace', async () => {
  const user = processes.find((p) => p.name === 'user-service')!;
  const login = await fetch(`${user.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
  });
  expect(login.status).toBe(200);
  const { access_token } = (await login.json()) as { access_token: string };
  const created = await fetch(`${user.url}/roles`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
    body: JSON.stringify({ name: `traced-${randomBytes(3).toString('hex')}`, level: 50 }),
  });
  expect(created.status).toBe(201);

  // The outbox's call to policy-sync (a user-service client span) starts the trace; policy-sync
  // serves it and pushes to OPA, whose server span is the child of policy-sync's client span.
  const hop = await waitFor(
    () => {
      for (const trigger of receiver.spans.filter(
        (s) => s.serviceName === 'user-service' && s.kind === CLIENT,
      )) {
        const trace = receiver.spans.filter((s) => s.traceId === trigger.traceId);
        const syncs = childOf(trace, [trigger], 'policy-sync', SERVER);
        const below = syncs.flatMap((sync) => descendants(trace, sync));
        const pushes = below.filter((s) => s.serviceName === 'policy-sync' && s.kind === CLIENT);
        const opa = childOf(trace, pushes, 'opa', SERVER);
        if (syncs.length > 0 && opa.length > 0) return { traceId: trigger.traceId, trace };
      }
      return undefined;
    },
    { what: 'a trace user-service → policy-sync → OPA', timeoutMs: 30_000, intervalMs: 200 },
  );
  const services = new Set(hop.trace.map((s) => s.serviceName));
  expect([...services].sort()).toEqual(
    expect.arrayContaining(['opa', 'policy-sync', 'user-service']),
  );

  // Log lines of both Node services carry the trace id of that trace.
  await waitFor(
    () =>
      ['user-service', 'policy-sync'].every((name) =>
        processes.find((p) => p.name === name)!.logs.some((line) => line.trace_id === hop.traceId),
      ),
    { what: `log lines with trace_id ${hop.traceId} from both services`, timeoutMs: 10_000 },
  );
});
