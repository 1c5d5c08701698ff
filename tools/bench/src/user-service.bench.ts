/**
 * Grant propagation and authorisation cost, with every part a real process: OPA loaded with
 * `policies/` (as the sidecar runs it), policy-sync and the user service.
 * - Propagation: from the user-service API call that switches a grant (PATCH /policies/:id) to
 *   OPA's decision for that user changing, over 100 changes (target p99 < 1 s).
 * - Revocations with policy-sync stopped, and unreachable, for 5 s during a run (`grant-outage.ts`).
 * - Authorisation overhead: a guarded endpoint (token check, Redis session, OPA decision) against
 *   the unguarded `/health` of the same process, sequential requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  freePort,
  POLICIES_DIR,
  requireEnv,
  startOpa,
  startTcpLink,
  waitFor,
  type TcpLink,
} from '@pelita/testenv';
import pg from 'pg';
import { generateKeyPairSync } from 'node:crypto';
import { measureOutages } from './grant-outage';
import { startService, type StartedService } from './process';
import { percentile, report, table, timingRow } from './report';

const ROOT = resolve(__dirname, '..', '..', '..');
const CHANGES = 100;
const REQUESTS = 1000;
const ADMIN = {
  email: 'bench-admin@pelita.test',
  password: 'bench-admin-pw-1',
  username: 'benchadmin',
};

export async function run(): Promise<void> {
  const env = requireEnv('POSTGRES_URL', 'REDIS_URL');
  const database = `user_service_bench_${process.pid}`;
  await admin(env.POSTGRES_URL, `CREATE DATABASE ${database}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'pelita-bench-opa-'));
  // OPA as the policy-sync sidecar runs it: the shared directory and the policies.
  const opa = await startOpa([dataDir, POLICIES_DIR]);
  const started: StartedService[] = [];
  let link: TcpLink | undefined;
  try {
    const syncPort = await freePort();
    // The user service reaches policy-sync through a link the outage measurement cuts.
    link = await startTcpLink(await freePort(), syncPort);
    const databaseUrl = new URL(env.POSTGRES_URL);
    databaseUrl.pathname = `/${database}`;
    // PELITA_BENCH_USER_SERVICE: another build's entry, e.g. the code before the outbox (its
    // `dist/main.js` in a worktree), measured by the same run for comparison.
    const userServiceMain =
      process.env.PELITA_BENCH_USER_SERVICE ?? join(ROOT, 'services/user-service/dist/main.js');
    const users = await startService(userServiceMain, {
      env: {
        DATABASE_URL: databaseUrl.toString(),
        REDIS_URL: env.REDIS_URL,
        URL_OPA: opa.url,
        POLICY_SYNC_URL: `http://127.0.0.1:${link.port}`,
        FIRST_ADMIN_EMAIL: ADMIN.email,
        FIRST_ADMIN_PASSWORD: ADMIN.password,
        FIRST_ADMIN_USERNAME: ADMIN.username,
        LOGIN_MAX_ATTEMPTS: '1000',
        JWT_PRIVATE_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
      },
    });
    started.push(users);
    const policySync = await startService(join(ROOT, 'services/policy-sync/dist/main.js'), {
      port: syncPort,
      env: {
        URL_USER: users.url,
        URL_OPA: opa.url,
        REDIS_URL: env.REDIS_URL,
        SYNC_CHANNEL: `pelita:bench:${process.pid}`,
        POLICY_DATA_FILE: join(dataDir, 'data.json'),
      },
    });
    started.push(policySync);
    const allows = (user: string, method: string, path: string) =>
      decide(opa.url, user, method, path);
    await waitFor(() => allows(ADMIN.username, 'GET', '/features'), {
      what: 'admin grants in OPA',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const adminToken = await login(users.url, ADMIN.email, ADMIN.password);
    const api = (method: string, path: string, body?: unknown) =>
      call(users.url, method, path, adminToken, body);

    // A member whose role gets one sub-feature through a policy the benchmark switches.
    const role = await api('POST', '/roles', { name: 'bench-role', level: 50 });
    const username = 'benchmember';
    await api('POST', '/users', {
      email: 'bench-member@pelita.test',
      username,
      full_name: 'Bench Member',
      password: 'bench-member-pw-1',
      role_id: role.id,
    });
    const feature = await api('POST', '/features', { name: 'bench-feature', label: 'Bench' });
    const sub = await api('POST', `/features/${feature.id}/sub-features`, {
      name: 'list',
      label: 'List features',
      method: 'get',
      path: '/features',
    });
    const policy = await api('POST', '/policies', { role_id: role.id, sub_feature_id: sub.id });
    await waitFor(() => allows(username, 'GET', '/features'), {
      what: 'the member grant in OPA',
      timeoutMs: 20_000,
      intervalMs: 50,
    });

    const propagation: number[] = [];
    let granted = true;
    for (let change = 0; change < CHANGES; change += 1) {
      granted = !granted;
      const start = performance.now();
      await api('PATCH', `/policies/${policy.id}`, { status: granted });
      await waitFor(async () => (await allows(username, 'GET', '/features')) === granted, {
        what: 'the change',
        intervalMs: 5,
      });
      propagation.push(performance.now() - start);
    }

    await measureOutages({
      link,
      api,
      allows,
      roleId: role.id,
      username,
      policySync: policySync.child,
      waitAllowed: (user, path) =>
        waitFor(() => allows(user, 'GET', path), {
          what: 'the outage grants in OPA',
          timeoutMs: 20_000,
          intervalMs: 50,
        }),
    });

    const guarded = await timeEach(() =>
      fetch(`${users.url}/features`, { headers: { authorization: `Bearer ${adminToken}` } }),
    );
    const open = await timeEach(() => fetch(`${users.url}/health`));

    report(
      `propagation: ${CHANGES} grant switches through PATCH /policies/:id, until OPA's decision flips`,
    );
    table([timingRow('API call → OPA decision changed', propagation)]);
    const p99 = percentile(propagation, 99);
    report(
      `propagation p99 ${p99.toFixed(1)} ms, target < 1000 ms: ${p99 < 1000 ? 'met' : 'missed'}`,
    );
    report(`\nauthorisation overhead: ${REQUESTS} sequential requests each, keep-alive`);
    table([
      timingRow('GET /features (token, session, OPA)', guarded),
      timingRow('baseline: GET /health (open)', open),
    ]);
    report(
      `guarded GET /features (authorisation plus its own SQL query) minus /health: p50 ${(percentile(guarded, 50) - percentile(open, 50)).toFixed(2)} ms, ` +
        `p99 ${(percentile(guarded, 99) - percentile(open, 99)).toFixed(2)} ms`,
    );
  } finally {
    for (const service of started.reverse()) await service.stop();
    await link?.cut();
    await opa.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await admin(env.POSTGRES_URL, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function decide(
  opaUrl: string,
  user: string,
  method: string,
  path: string,
): Promise<boolean> {
  const res = await fetch(`${opaUrl}/v1/data/pelita/authz/allow`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: { user, method, path } }),
  });
  return ((await res.json()) as { result?: unknown }).result === true;
}

async function login(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ id: number }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  // Every resource this benchmark creates answers with its numeric id.
  return JSON.parse(text) as { id: number };
}

async function timeEach(request: () => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const start = performance.now();
    const res = await request();
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`request answered ${res.status}`);
    times.push(performance.now() - start);
  }
  return times;
}
