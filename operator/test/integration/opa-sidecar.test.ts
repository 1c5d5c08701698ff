/**
 * The OPA sidecar as the operator renders it, run for real: OPA_BIN started with the rendered
 * container's arguments and environment, loading the rendered policies ConfigMap. An attacker
 * with a pod in the cluster reaches its port through the Service; they must not be able to
 * change or read the policy data, only ask for decisions (as every service does) and read OPA's
 * own metrics (as Prometheus does, without a token).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import { freePort, POLICIES_DIR, requireEnv, stopChild, waitFor } from '@pelita/testenv';
import { loadPolicies } from '../../src/policies';
import { renderPoliciesConfigMap, renderWorkload } from '../../src/render';
import { makeInstall } from '../unit/fixtures';

const TOKEN = 'opa-writer-token-0f3a9c';
const install = makeInstall();
const decision = { user: 'mallory', method: 'GET', path: '/api/v1/admin/users' };

let opa: ChildProcess;
let url: string;
let dir: string;

/** The rendered sidecar, its mounts mapped onto directories of this test. */
function renderedSidecar(): { args: string[]; env: Record<string, string> } {
  const pod = renderWorkload(install, 'policy-sync')?.spec?.template.spec;
  const sidecar = pod?.containers.find((c) => c.name === 'opa') as V1Container;
  // The token comes from the platform Secret: check the reference, then supply its value.
  expect(sidecar.env).toEqual([
    {
      name: 'OPA_TOKEN',
      valueFrom: { secretKeyRef: { name: 'acme-platform', key: 'opa-token' } },
    },
  ]);
  const mounts = Object.fromEntries(
    (sidecar.volumeMounts ?? []).map((m) => [m.mountPath, path.join(dir, m.name)]),
  );
  return {
    args: (sidecar.args ?? []).map((arg) => mounts[arg] ?? arg),
    env: { OPA_TOKEN: TOKEN },
  };
}

beforeAll(async () => {
  const { OPA_BIN } = requireEnv('OPA_BIN');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opa-sidecar-'));
  fs.mkdirSync(path.join(dir, 'share'));
  fs.mkdirSync(path.join(dir, 'policies'));
  const policies = renderPoliciesConfigMap(install, loadPolicies(POLICIES_DIR))?.data ?? {};
  expect(Object.keys(policies)).toContain('system_authz.rego');
  for (const [file, text] of Object.entries(policies)) {
    fs.writeFileSync(path.join(dir, 'policies', file), text);
  }
  const port = await freePort();
  const { args, env } = renderedSidecar();
  const addr = args.indexOf('--addr');
  expect(args[addr + 1]).toBe(':8181');
  args[addr + 1] = `127.0.0.1:${port}`;
  opa = spawn(OPA_BIN, [...args, '--log-level=error'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: 'ignore',
  });
  url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true, {
    timeoutMs: 15_000,
    what: `the OPA sidecar on ${url}`,
  });
  // The state policy-sync pushed: mallory has no grant.
  const pushed = await call(
    'PUT',
    '/v1/data',
    { user_roles: { mallory: [] }, role_grants: {} },
    TOKEN,
  );
  expect(pushed.status).toBe(204);
}, 60_000);

afterAll(async () => {
  await stopChild(opa);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, route: string, body?: unknown, token?: string) {
  return fetch(`${url}${route}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function allowed(): Promise<boolean> {
  const res = await call('POST', '/v1/data/pelita/authz/allow', { input: decision });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result?: unknown }).result === true;
}

const grantAll = {
  user_roles: { mallory: ['owner'] },
  role_grants: {
    owner: [{ id: 1, name: 'all', label: 'All', method: 'GET', path: '/**', status: true }],
  },
};

describe('the OPA sidecar as rendered', () => {
  it('answers decisions and their explanations to anyone, without a token', async () => {
    expect(await allowed()).toBe(false);
    const explained = await call('POST', '/v1/data/pelita/authz/explain', { input: decision });
    expect(explained.status).toBe(200);
    expect(((await explained.json()) as { result: unknown }).result).toMatchObject({
      allowed: false,
      user_known: true,
      roles: [],
    });
    expect((await call('GET', '/health')).status).toBe(200);
    expect((await call('GET', '/health?bundles')).status).toBe(200);
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', 'guessed'],
    ['the token with a suffix', `${TOKEN}x`],
  ])('refuses a data write from outside with %s, and the decision stays', async (_c, token) => {
    for (const [method, route, body] of [
      ['PUT', '/v1/data', grantAll],
      ['PUT', '/v1/data/user_roles/mallory', ['owner']],
      ['PATCH', '/v1/data', [{ op: 'add', path: '/user_roles/mallory', value: ['owner'] }]],
      ['DELETE', '/v1/data/role_grants', undefined],
    ] as const) {
      const res = await call(method, route, body, token);
      expect(`${method} ${route} ${res.status}`).toBe(`${method} ${route} 401`);
    }
    expect(await allowed()).toBe(false);
  });

  it('refuses policy writes and deletes from outside', async () => {
    const policy = 'package pelita.authz\nallow := true\n';
    const put = await fetch(`${url}/v1/policies/pwn`, { method: 'PUT', body: policy });
    expect(put.status).toBe(401);
    const listed = await call('GET', '/v1/policies', undefined, TOKEN);
    const ids = ((await listed.json()) as { result: Array<{ id: string }> }).result.map(
      (p) => p.id,
    );
    expect(ids.some((id) => id.endsWith('system_authz.rego'))).toBe(true);
    for (const id of ids) {
      expect((await call('DELETE', `/v1/policies/${id}`)).status).toBe(401);
    }
    expect(await allowed()).toBe(false);
  });

  it('refuses reads of the data and ad-hoc queries from outside', async () => {
    expect((await call('GET', '/v1/data')).status).toBe(401);
    expect((await call('GET', '/v1/data/user_roles')).status).toBe(401);
    expect((await call('POST', '/v1/data', { input: {} })).status).toBe(401);
    expect((await call('POST', '/v1/query', { query: 'data.user_roles[x]' })).status).toBe(401);
    expect((await call('POST', '/v1/compile', { query: 'data.user_roles[x]' })).status).toBe(401);
    expect((await call('GET', '/v1/config')).status).toBe(401);
  });

  it("answers an anonymous GET /metrics with OPA's counters and timings, and nothing of the data", async () => {
    await allowed(); // at least one decision counted
    const res = await call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^http_request_duration_seconds_count\{[^}]*handler="v1\/data"/m);
    expect(text).toMatch(/^go_goroutines /m);
    // Names of users and roles in `data` never appear there.
    expect(text).not.toMatch(/mallory|owner|user_roles|role_grants/);
    // Only reading: any other method on it is refused, and a token changes nothing.
    expect((await call('POST', '/metrics')).status).toBe(401);
    expect((await call('GET', '/metrics', undefined, 'guessed')).status).toBe(200);
    // The data stays closed to the same anonymous caller.
    expect((await call('GET', '/v1/data')).status).toBe(401);
    expect((await call('PUT', '/v1/data', grantAll)).status).toBe(401);
  });

  it('lets the holder of the OPA token (policy-sync) write and read, and decisions follow', async () => {
    expect((await call('PUT', '/v1/data', grantAll, TOKEN)).status).toBe(204);
    const marker = await call('PUT', '/v1/data/pelita_policy_sync', { revision: 'r1' }, TOKEN);
    expect(marker.status).toBe(204);
    const read = await call('GET', '/v1/data/pelita_policy_sync/revision', undefined, TOKEN);
    expect(await read.json()).toEqual({ result: 'r1' });
    expect(await allowed()).toBe(true);
  });
});
