/**
 * GET /authz/explain against the real OPA loaded with policies/ (explain.rego beside authz.rego)
 * and fed by the real policy-sync: which grant allows, which one is switched off, none, or a user
 * OPA does not know; only for oneself or a user below one's level.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import { opaExplainClient } from '../../src/access/opa-explain-client';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const unique = () => randomBytes(4).toString('hex');

describe('explaining a decision', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform();
    await waitFor(() => platform.allows(ADMIN.username, 'GET', '/users'), 'the admin in OPA');
    admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
  });
  afterAll(() => platform?.stop());

  async function call(method: string, path: string, token: string, body?: unknown) {
    const res = await platform.request(method, path, {
      token,
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
  }
  async function ok(method: string, path: string, body?: unknown) {
    const res = await call(method, path, admin, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
    return res.body;
  }
  const explain = (token: string, userId: string, method: string, path: string) =>
    call(
      'GET',
      `/authz/explain?user_id=${userId}&method=${method}&path=${encodeURIComponent(path)}`,
      token,
    );

  it('names the grant that allows, then the one switched off, then none', async () => {
    const role = await ok('POST', '/roles', { name: `ex-${unique()}`, level: 50 });
    const username = `ex${unique()}`;
    const user = await ok('POST', '/users', {
      email: `${username}@pelita.test`,
      username,
      full_name: 'Explained',
      password: 'explained-pw-1',
      role_id: role.id,
    });
    const feature = await ok('POST', '/features', { name: `ex-${unique()}`, label: 'x' });
    const sub = await ok('POST', `/features/${feature.id}/sub-features`, {
      name: 'list',
      label: 'List features',
      method: 'GET',
      path: '/features',
    });
    const policy = await ok('POST', '/policies', { role_id: role.id, sub_feature_id: sub.id });
    await waitFor(() => platform.allows(username, 'GET', '/features'), 'the grant in OPA');

    const granted = await explain(admin, user.id, 'get', '/features?page=2');
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual({
      user: { id: user.id, username },
      method: 'GET',
      path: '/features?page=2',
      allowed: true,
      reason: 'granted',
      roles: [role.name],
      grants: [
        {
          role: role.name,
          id: sub.id,
          name: 'list',
          label: 'List features',
          method: 'GET',
          path: '/features',
          status: true,
        },
      ],
    });

    await ok('PATCH', `/policies/${policy.id}`, { status: false });
    await waitFor(async () => !(await platform.allows(username, 'GET', '/features')), 'off');
    const off = await explain(admin, user.id, 'GET', '/features');
    expect(off.body).toMatchObject({ allowed: false, reason: 'switched_off' });
    expect(off.body.grants).toEqual([expect.objectContaining({ id: sub.id, status: false })]);

    const none = await explain(admin, user.id, 'DELETE', '/features/1');
    expect(none.body).toMatchObject({ allowed: false, reason: 'no_grant', grants: [] });

    await ok('PATCH', `/users/${user.id}`, { is_active: false });
    await waitFor(async () => {
      const res = await explain(admin, user.id, 'GET', '/features');
      return res.body.reason === 'not_in_policy_data';
    }, 'the deactivated user gone from OPA');

    // The admin's own: allowed by the built-in `**` grant.
    const me = (await ok('GET', '/me')) as { id: string };
    const own = await explain(admin, me.id, 'DELETE', '/users/x');
    expect(own.body).toMatchObject({ allowed: true, reason: 'granted' });
    expect(own.body.grants).toEqual([expect.objectContaining({ path: '**', method: 'DELETE' })]);
  });

  it('is refused to a lower role, and even when granted, for users at or above its level', async () => {
    const role = await ok('POST', '/roles', { name: `lo-${unique()}`, level: 60 });
    const username = `lo${unique()}`;
    const lower = await ok('POST', '/users', {
      email: `${username}@pelita.test`,
      username,
      full_name: 'Lower',
      password: 'lower-pw-12345',
      role_id: role.id,
    });
    await waitFor(async () => {
      const data = (await (await fetch(`${platform.opa.url}/v1/data/user_roles`)).json()) as any;
      return data.result?.[username] !== undefined;
    }, 'the lower user in OPA');
    const token = (await platform.login(`${username}@pelita.test`, 'lower-pw-12345')).access_token;
    const adminId = ((await ok('GET', '/me')) as { id: string }).id;
    // Without the grant: OPA refuses.
    expect((await explain(token, adminId, 'GET', '/users')).status).toBe(403);

    const feature = await ok('POST', '/features', { name: `lo-${unique()}`, label: 'x' });
    const sub = await ok('POST', `/features/${feature.id}/sub-features`, {
      name: 'explain',
      label: 'Explain',
      method: 'GET',
      path: '/authz/explain',
    });
    await ok('POST', '/policies', { role_id: role.id, sub_feature_id: sub.id });
    await waitFor(() => platform.allows(username, 'GET', '/authz/explain'), 'the grant');
    // Granted: its own decisions yes, an administrator's no (they would show the admin's grants).
    expect((await explain(token, lower.id, 'GET', '/users')).status).toBe(200);
    expect((await explain(token, adminId, 'GET', '/users')).status).toBe(403);
  });

  it('validates the request', async () => {
    const me = ((await ok('GET', '/me')) as { id: string }).id;
    expect((await explain(admin, me, 'GET', 'no-slash')).status).toBe(400);
    expect((await explain(admin, me, 'G E T', '/x')).status).toBe(400);
    expect((await explain(admin, 'not-a-uuid', 'GET', '/x')).status).toBe(400);
    expect((await explain(admin, '00000000-0000-4000-8000-000000000000', 'GET', '/x')).status).toBe(
      404,
    );
  });
});

describe('the OPA explain client', () => {
  it('says why when OPA refuses to explain (its API policy) or has no explain rule', async () => {
    let answer: { status: number; body: unknown } = { status: 403, body: {} };
    const server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const explain = opaExplainClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const input = { user: 'ann', method: 'GET', path: '/x' };
    await expect(explain(input)).rejects.toMatchObject({
      status: 503,
      code: 'explanation_unavailable',
    });
    answer = { status: 200, body: {} };
    await expect(explain(input)).rejects.toMatchObject({ code: 'explanation_unavailable' });
    answer = { status: 500, body: {} };
    await expect(explain(input)).rejects.toMatchObject({ code: 'authorization_unavailable' });
    await new Promise((resolve) => server.close(resolve));
  });
});
