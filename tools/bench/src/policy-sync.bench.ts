/**
 * Policy propagation and decision latency, on a realistic policy document (1,000 users, 50 roles
 * of 20 grants each) with the built policy-sync running as two replica processes, each with its
 * own OPA, sharing the test environment's Redis.
 *
 * Propagation: from a trigger (`GET /role-grants` on replica A after the user service's grants
 * changed) to OPA's decision changing, on A's OPA and on B's (reached through the Redis
 * fan-out); baseline: pushing the same document straight into OPA and asking it.
 * Decisions: `POST /v1/data/pelita/authz/allow` for one `{user, method, path}`, one at a time; baseline: OPA's
 * `GET /health` round trip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireEnv, waitFor } from '@pelita/testenv';
import { ratio } from './load';
import { startService, type StartedService } from './process';
import { percentile, report, table, timingRow } from './report';

const CHANGES = 100;
const TARGET_P99_MS = 1000;
const DECISION_REQUESTS = 2000;
const WARM_UP_REQUESTS = 200;
/** Polls every millisecond: fine enough for a sub-second target, and leaves the CPU to the processes being measured. */
const EVERY_MS = 1;
const ROOT = join(__dirname, '..', '..', '..');
const POLICY_SYNC_MAIN = join(ROOT, 'services', 'policy-sync', 'dist', 'main.js');
const POLICIES_DIR = join(ROOT, 'policies');

interface Grant {
  id: number;
  name: string;
  label: string;
  method: string;
  path: string;
  status: boolean;
}

/** The user service's two open-api endpoints, serving data the benchmark changes. */
interface RoleData {
  userRoles: Record<string, string[]>;
  roleGrants: Record<string, Grant[]>;
}

export async function run(): Promise<void> {
  const { REDIS_URL, OPA_BIN } = requireEnv('REDIS_URL', 'OPA_BIN');
  const data = realisticData();
  const userService = await startUserService(data);
  const userServiceUrl = `http://127.0.0.1:${(userService.address() as AddressInfo).port}`;
  const opas: Opa[] = [];
  const replicas: StartedService[] = [];
  try {
    for (let i = 0; i < 3; i += 1) opas.push(await startOpa(OPA_BIN));
    const [opaA, opaB, opaDirect] = opas as [Opa, Opa, Opa];
    const channel = `pelita:policy-sync:bench:${randomUUID()}`;
    for (const opa of [opaA, opaB]) {
      replicas.push(
        // PORT is set by startService: the service reads it when NODE_PORT is absent.
        await startService(POLICY_SYNC_MAIN, {
          env: {
            URL_USER: userServiceUrl,
            URL_OPA: opa.url,
            REDIS_URL,
            SYNC_CHANNEL: channel,
            POLICY_DATA_FILE: join(mkdtempSync(join(tmpdir(), 'policy-sync-bench-')), 'data.json'),
            LOG_LEVEL: 'warn',
          },
        }),
      );
    }
    const syncA = (replicas[0] as StartedService).url;
    await waitFor(() => opaB.allows(BENCH_USER, '/api/v1/role-0/0'), {
      what: 'the start-up sync',
      intervalMs: EVERY_MS,
    });

    // Each change grants the benchmark user one new path: the decision for it flips to allow.
    const local: number[] = [];
    const peer: number[] = [];
    const direct: number[] = [];
    for (let change = 0; change < CHANGES; change += 1) {
      const path = `/api/v1/items/${change}`;
      data.roleGrants[BENCH_ROLE] = [grant(100_000 + change, 'GET', path)];

      const started = performance.now();
      const res = await fetch(`${syncA}/role-grants`);
      if (!res.ok) throw new Error(`GET /role-grants answered ${res.status}`);
      await Promise.all([
        waitFor(() => opaA.allows(BENCH_USER, path), {
          what: 'replica A',
          intervalMs: EVERY_MS,
        }).then(() => local.push(performance.now() - started)),
        waitFor(() => opaB.allows(BENCH_USER, path), {
          what: 'replica B',
          intervalMs: EVERY_MS,
        }).then(() => peer.push(performance.now() - started)),
      ]);

      const body = JSON.stringify({ user_roles: data.userRoles, role_grants: data.roleGrants });
      const pushed = performance.now();
      await opaDirect.put(body);
      await waitFor(() => opaDirect.allows(BENCH_USER, path), {
        what: 'direct OPA',
        intervalMs: EVERY_MS,
      });
      direct.push(performance.now() - pushed);
    }

    const documentKb = Math.round(
      JSON.stringify({ user_roles: data.userRoles, role_grants: data.roleGrants }).length / 1024,
    );
    report(
      `propagation: ${CHANGES} grant changes, document ${documentKb} KiB ` +
        `(${Object.keys(data.userRoles).length} users, ${Object.keys(data.roleGrants).length} roles)`,
    );
    table([
      timingRow('trigger → decision, same replica', local),
      timingRow('trigger → decision, peer via Redis', peer),
      timingRow('baseline: PUT straight to OPA → decision', direct),
    ]);
    const peerP99 = percentile(peer, 99);
    report(
      `propagation p99 (peer replica): ${peerP99.toFixed(1)} ms, target < ${TARGET_P99_MS} ms: ` +
        `${peerP99 < TARGET_P99_MS ? 'met' : 'MISSED'}; ` +
        `ratio to the direct push p50: ${ratio(percentile(peer, 50), percentile(direct, 50))}`,
    );

    // One request at a time: the latency of one decision, not OPA's throughput.
    const input = { user: BENCH_USER, method: 'GET', path: '/api/v1/role-7/2/x' };
    const decide = () => opaA.allows(input.user, input.path);
    const healthCheck = async () => (await fetch(`${opaA.url}/health`)).ok;
    await timeEach(decide, WARM_UP_REQUESTS);
    await timeEach(healthCheck, WARM_UP_REQUESTS);
    const decisions = await timeEach(decide, DECISION_REQUESTS);
    const health = await timeEach(healthCheck, DECISION_REQUESTS);
    report(`\ndecision latency: ${DECISION_REQUESTS} sequential requests each, keep-alive`);
    table([
      timingRow('POST /v1/data/pelita/authz/allow', decisions),
      timingRow('baseline: GET /health', health),
    ]);
    report(
      `decision/health ratio: p50 ${ratio(percentile(decisions, 50), percentile(health, 50))}, ` +
        `p99 ${ratio(percentile(decisions, 99), percentile(health, 99))}`,
    );
  } finally {
    for (const replica of replicas) await replica.stop();
    for (const opa of opas) await opa.stop();
    userService.closeAllConnections();
    userService.close();
  }
}

const BENCH_USER = 'user-0';
const BENCH_ROLE = 'bench-role';

function grant(id: number, method: string, path: string, status = true): Grant {
  return { id, name: `grant-${id}`, label: `Grant ${id}`, method, path, status };
}

/** 1,000 users with 3 of 50 roles each; every role holds 20 grants. */
function realisticData(): RoleData {
  const roleGrants: Record<string, Grant[]> = {};
  for (let role = 0; role < 50; role += 1) {
    roleGrants[`role-${role}`] = Array.from({ length: 20 }, (_, i) =>
      grant(
        role * 100 + i,
        i % 2 === 0 ? 'GET' : 'POST',
        `/api/v1/role-${role}/${i % 10}${i >= 10 ? '/*' : ''}`,
      ),
    );
  }
  roleGrants[BENCH_ROLE] = [];
  const userRoles: Record<string, string[]> = {};
  for (let user = 0; user < 1000; user += 1) {
    userRoles[`user-${user}`] = [
      `role-${user % 50}`,
      `role-${(user + 7) % 50}`,
      `role-${(user + 13) % 50}`,
    ];
  }
  userRoles[BENCH_USER]?.push(BENCH_ROLE);
  return { userRoles, roleGrants };
}

async function startUserService(data: RoleData): Promise<Server> {
  const server = createServer((req, res) => {
    const body =
      req.url === '/open-api/role-users'
        ? { user_roles: data.userRoles }
        : req.url === '/open-api/role-grants'
          ? { policies: data.roleGrants }
          : undefined;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

interface Opa {
  url: string;
  allows(user: string, path: string): Promise<boolean>;
  put(document: string): Promise<void>;
  stop(): Promise<void>;
}

async function startOpa(opaBin: string): Promise<Opa> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    opaBin,
    [
      'run',
      '--server',
      '--skip-version-check',
      '--log-level=error',
      `--addr=127.0.0.1:${port}`,
      '--ignore=*_test.rego',
      POLICIES_DIR,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await waitFor(async () => (await fetch(`${url}/health`)).ok, {
    what: `OPA on ${url}`,
    timeoutMs: 15_000,
    intervalMs: EVERY_MS,
  });
  return {
    url,
    async allows(user, path) {
      const res = await fetch(`${url}/v1/data/pelita/authz/allow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: { user, method: 'GET', path } }),
      });
      return ((await res.json()) as { result?: unknown }).result === true;
    },
    async put(document) {
      const res = await fetch(`${url}/v1/data`, { method: 'PUT', body: document });
      if (res.status !== 204) throw new Error(`OPA PUT /v1/data answered ${res.status}`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `request` `count` times in a row; the duration of each, in ms. */
async function timeEach(request: () => Promise<unknown>, count: number): Promise<number[]> {
  const durations: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await request();
    durations.push(performance.now() - started);
  }
  return durations;
}
