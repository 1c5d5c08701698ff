/**
 * Roles, users, features, sub-features and policies end to end: a change made through the API
 * reaches the real policy-sync, which pushes it to a real OPA loaded with policies/; the guard
 * of this service then asks that OPA. Grant → allow; switch off or revoke → deny.
 */
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import { messagesTo, newMailedToken } from './support/mailbox';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const unique = () => randomBytes(4).toString('hex');

describe('access control through the API, decided by OPA', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform({ APP_TIMEZONE: 'Asia/Jakarta' });
    await waitFor(
      () => platform.allows(ADMIN.username, 'GET', '/users'),
      'the admin grants in OPA',
    );
    admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
  });
  afterAll(() => platform?.stop());

  const call = (method: string, path: string, token: string, body?: unknown) =>
    platform.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  async function json<T = any>(res: Response, status: number): Promise<T> {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  async function roleWithUser(level: number) {
    const role = await json(
      await call('POST', '/roles', admin, { name: `r-${unique()}`, level }),
      201,
    );
    const username = `u${unique()}`;
    const user = await json(
      await call('POST', '/users', admin, {
        email: `${username}@pelita.test`,
        username,
        full_name: 'Member',
        password: 'member-pw-123',
        role_id: role.id,
      }),
      201,
    );
    await waitFor(async () => {
      const data = (await (await fetch(`${platform.opa.url}/v1/data/user_roles`)).json()) as any;
      return data.result?.[username]?.[0] === role.name;
    }, 'the new user in OPA');
    const token = (await platform.login(`${username}@pelita.test`, 'member-pw-123')).access_token;
    return { role, user, username, token };
  }

  it('grants a sub-feature to a role: the decision flips to allow; off or revoked: deny', async () => {
    const { role, username, token } = await roleWithUser(50);
    expect((await call('GET', '/features', token)).status).toBe(403);

    const feature = await json(
      await call('POST', '/features', admin, { name: `f-${unique()}`, label: 'Features' }),
      201,
    );
    const sub = await json(
      await call('POST', `/features/${feature.id}/sub-features`, admin, {
        name: 'list',
        label: 'List features',
        method: 'get',
        path: '/features',
      }),
      201,
    );
    expect(sub.method).toBe('GET');
    const policy = await json(
      await call('POST', '/policies', admin, { role_id: role.id, sub_feature_id: sub.id }),
      200,
    );
    expect(policy).toMatchObject({ role: { name: role.name }, status: true });

    await waitFor(() => platform.allows(username, 'GET', '/features'), 'the grant in OPA');
    expect((await call('GET', '/features', token)).status).toBe(200);

    await json(await call('PATCH', `/policies/${policy.id}`, admin, { status: false }), 200);
    await waitFor(
      async () => !(await platform.allows(username, 'GET', '/features')),
      'the grant off in OPA',
    );
    expect((await call('GET', '/features', token)).status).toBe(403);

    await json(await call('PATCH', `/policies/${policy.id}`, admin, { status: true }), 200);
    await waitFor(() => platform.allows(username, 'GET', '/features'), 'the grant on again');
    await json(await call('DELETE', `/policies/${policy.id}`, admin), 200);
    await waitFor(
      async () => !(await platform.allows(username, 'GET', '/features')),
      'the revoke in OPA',
    );
    expect((await call('GET', '/features', token)).status).toBe(403);
  });

  it('keeps decisions across an OPA restart: the sidecar loads data.json at start', async () => {
    const { role, username, token } = await roleWithUser(60);
    const feature = await json(
      await call('POST', '/features', admin, { name: `g-${unique()}`, label: 'Restart' }),
      201,
    );
    const sub = await json(
      await call('POST', `/features/${feature.id}/sub-features`, admin, {
        name: 'list',
        label: 'List features',
        method: 'get',
        path: '/features',
      }),
      201,
    );
    await json(
      await call('POST', '/policies', admin, { role_id: role.id, sub_feature_id: sub.id }),
      200,
    );
    await waitFor(() => platform.allows(username, 'GET', '/features'), 'the grant in OPA');

    await platform.restartOpa();
    // No sync has run since the restart: the decisions come from the file OPA loaded.
    expect(await platform.allows(username, 'GET', '/features')).toBe(true);
    expect(await platform.allows(username, 'DELETE', '/features')).toBe(false);
    expect(await platform.allows(ADMIN.username, 'GET', '/users')).toBe(true);
    expect((await call('GET', '/features', token)).status).toBe(200);
  });

  it('has self-registration off unless REGISTRATION_ENABLED says otherwise', async () => {
    const res = await platform.request('POST', '/auth/register', {
      body: {
        email: `walk-in-${unique()}@pelita.test`,
        username: `w${unique()}`,
        full_name: 'Walk In',
        password: 'walk-in-pw-1',
      },
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('registration_disabled');
  });

  it('serves the open-api documents in the policy-sync contract', async () => {
    const users = await json(await platform.request('GET', '/open-api/role-users'), 200);
    expect(users.user_roles[ADMIN.username]).toEqual(['admin']);
    const grants = await json(await platform.request('GET', '/open-api/role-grants'), 200);
    expect(grants.policies.admin).toContainEqual({
      id: expect.any(Number),
      name: 'all-get',
      label: 'Every GET request',
      method: 'GET',
      path: '**',
      status: true,
    });
    // The built-in user role holds the core backend's workspace grants (migration 005).
    expect(grants.policies.user).toContainEqual({
      id: expect.any(Number),
      name: 'read-workspace',
      label: 'Read in a workspace',
      method: 'GET',
      path: '/api/workspaces/**',
      status: true,
    });
    // ... and its own account's (migration 006), nothing else.
    const userGrants = grants.policies.user as Array<{ path: string }>;
    expect(
      userGrants.every(
        (grant) => grant.path.startsWith('/api/workspace') || grant.path.startsWith('/me'),
      ),
    ).toBe(true);
    expect(
      userGrants
        .map((grant) => grant.path)
        .filter((p) => p.startsWith('/me'))
        .sort(),
    ).toEqual(['/me', '/me/password', '/me/shortcuts']);
  });

  it('lets a user manage only roles and users below their own level', async () => {
    const manager = await roleWithUser(10);
    const feature = await json(
      await call('POST', '/features', admin, { name: `m-${unique()}` }),
      201,
    );
    for (const [method, path] of [
      ['POST', '/roles'],
      ['PUT', '/roles/*'],
      ['POST', '/users'],
      ['PATCH', '/users/*'],
      ['DELETE', '/users/*'],
    ] as const) {
      const sub = await json(
        await call('POST', `/features/${feature.id}/sub-features`, admin, {
          name: `${method}${path}`,
          method,
          path,
        }),
        201,
      );
      await json(
        await call('POST', '/policies', admin, {
          role_id: manager.role.id,
          sub_feature_id: sub.id,
        }),
        200,
      );
    }
    await waitFor(
      () => platform.allows(manager.username, 'DELETE', '/users/x'),
      'the manager grants',
    );

    expect(
      (await call('POST', '/roles', manager.token, { name: `hi-${unique()}`, level: 10 })).status,
    ).toBe(403);
    expect(
      (await call('POST', '/roles', manager.token, { name: `hi-${unique()}`, level: 5 })).status,
    ).toBe(403);
    const below = await json(
      await call('POST', '/roles', manager.token, { name: `lo-${unique()}`, level: 20 }),
      201,
    );
    expect(
      (await call('PUT', `/roles/${below.id}`, manager.token, { name: below.name, level: 1 }))
        .status,
    ).toBe(403);

    const users = await json<{ data: any[] }>(await call('GET', '/users?limit=200', admin), 200);
    const adminUser = users.data.find((u: any) => u.username === ADMIN.username);
    expect(
      (await call('PATCH', `/users/${adminUser.id}`, manager.token, { full_name: 'Hacked' }))
        .status,
    ).toBe(403);
    expect((await call('DELETE', `/users/${adminUser.id}`, manager.token)).status).toBe(403);
    const username = `w${unique()}`;
    const worker = await json(
      await call('POST', '/users', manager.token, {
        email: `${username}@pelita.test`,
        username,
        full_name: 'Worker',
        password: 'worker-pw-123',
        role_id: below.id,
      }),
      201,
    );
    const roles = await json<{ data: any[] }>(await call('GET', '/roles', admin), 200);
    const adminRole = roles.data.find((r: any) => r.name === 'admin');
    expect(
      (await call('PATCH', `/users/${worker.id}`, manager.token, { role_id: adminRole.id })).status,
    ).toBe(403);
    expect(
      (await call('PATCH', `/users/${manager.user.id}`, manager.token, { is_active: false }))
        .status,
    ).toBe(403);
    const renamed = await json(
      await call('PATCH', `/users/${manager.user.id}`, manager.token, { full_name: 'Me' }),
      200,
    );
    expect(renamed.full_name).toBe('Me');
    expect((await call('DELETE', `/users/${worker.id}`, manager.token)).status).toBe(200);
  });

  it('lets an administrator grant and point sub-features only within their own grants', async () => {
    // A lower-level admin who may manage policies and sub-features, and read users.
    const manager = await roleWithUser(10);
    const feature = await json(
      await call('POST', '/features', admin, { name: `g-${unique()}` }),
      201,
    );
    const subFeature = async (method: string, path: string): Promise<any> =>
      json(
        await call('POST', `/features/${feature.id}/sub-features`, admin, {
          name: `${method}${path}-${unique()}`,
          method,
          path,
        }),
        201,
      );
    const grantTo = async (roleId: number, subFeatureId: number, token = admin) =>
      call('POST', '/policies', token, { role_id: roleId, sub_feature_id: subFeatureId });
    const held = [
      await subFeature('POST', '/policies'),
      await subFeature('PATCH', '/policies/*'),
      await subFeature('PUT', '/features/*/sub-features/*'),
      await subFeature('GET', '/users'),
    ];
    for (const sub of held) await json(await grantTo(manager.role.id, sub.id), 200);
    await waitFor(
      () => platform.allows(manager.username, 'PUT', '/features/1/sub-features/2'),
      'the manager grants',
    );
    const lower = await json(
      await call('POST', '/roles', admin, { name: `lo-${unique()}`, level: 50 }),
      201,
    );

    // Held: may be granted down. Not held (the built-in everything, or a wider path): refused.
    expect((await grantTo(lower.id, held[3].id, manager.token)).status).toBe(200);
    const features = await json<{ data: any[] }>(await call('GET', '/features', admin), 200);
    const all = features.data.find((f: any) => f.name === 'all');
    const everything = await json<{ data: any[] }>(
      await call('GET', `/features/${all.id}/sub-features`, admin),
      200,
    );
    const getEverything = everything.data.find((s: any) => s.method === 'GET');
    const refused = await grantTo(lower.id, getEverything.id, manager.token);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('not within your own grants');
    const wider = await subFeature('GET', '/users/**');
    expect((await grantTo(lower.id, wider.id, manager.token)).status).toBe(403);
    // Switching an existing, switched-off grant on is granting too.
    const off = await json(
      await call('POST', '/policies', admin, {
        role_id: lower.id,
        sub_feature_id: wider.id,
        status: false,
      }),
      200,
    );
    expect(
      (await call('PATCH', `/policies/${off.id}`, manager.token, { status: true })).status,
    ).toBe(403);

    // Pointing a sub-feature the lower role holds at everything: refused; within: allowed.
    const granted = held[3];
    const repoint = (sub: any, path: string) =>
      call('PUT', `/features/${feature.id}/sub-features/${sub.id}`, manager.token, {
        name: sub.name,
        method: 'GET',
        path,
      });
    expect((await repoint(granted, '**')).status).toBe(403);
    // A sub-feature the manager's own role (or one above) holds cannot be changed by them.
    expect((await repoint(granted, '/users')).status).toBe(403);
    const spare = await subFeature('GET', '/users');
    await json(await grantTo(lower.id, spare.id), 200);
    expect((await repoint(spare, '/users')).status).toBe(200);
    expect((await repoint(spare, '/users/*')).status).toBe(403);
  });

  it("changes one's own e-mail only with the current password and once the link mailed to it is followed, tells the old address; a new username ends the sessions", async () => {
    const member = await roleWithUser(30);
    const feature = await json(
      await call('POST', '/features', admin, { name: `self-${unique()}` }),
      201,
    );
    const sub = await json(
      await call('POST', `/features/${feature.id}/sub-features`, admin, {
        name: 'patch-users',
        method: 'PATCH',
        path: '/users/*',
      }),
      201,
    );
    await json(
      await call('POST', '/policies', admin, { role_id: member.role.id, sub_feature_id: sub.id }),
      200,
    );
    await waitFor(
      () => platform.allows(member.username, 'PATCH', `/users/${member.user.id}`),
      'the member grant',
    );
    const oldEmail = `${member.username}@pelita.test`;
    const newEmail = `moved-${member.username}@pelita.test`;
    const own = (body: unknown, token = member.token) =>
      call('PATCH', `/users/${member.user.id}`, token, body);

    const bare = await own({ email: newEmail });
    expect(bare.status).toBe(403);
    expect(await bare.text()).toContain('password_confirmation_required');
    expect((await own({ email: newEmail, current_password: 'not-my-pw' })).status).toBe(403);
    // Another account's address is refused at once.
    const taken = await own({ email: ADMIN.email, current_password: 'member-pw-123' });
    expect(taken.status).toBe(409);
    const asked = await json(
      await own({ email: newEmail, current_password: 'member-pw-123' }),
      200,
    );
    // Not yet: the account keeps its address (for logging in and for reset links) until the
    // link mailed to the new one is followed.
    expect(asked).toMatchObject({ email: oldEmail, pending_email: newEmail });
    expect((await json(await call('GET', `/users/${member.user.id}`, admin), 200)).email).toBe(
      oldEmail,
    );
    const newLogin = () =>
      platform.request('POST', '/auth/login', {
        body: { email: newEmail, password: 'member-pw-123' },
      });
    expect((await newLogin()).status).toBe(401);
    await platform.login(oldEmail, 'member-pw-123');
    // Another request within VERIFICATION_RESEND_SECONDS mails nothing: nobody can flood an
    // address through their own account.
    const again = await own({ email: `other-${newEmail}`, current_password: 'member-pw-123' });
    expect(again.status).toBe(429);

    // A reset link mailed to the old address before the change...
    expect((await call('POST', '/auth/forgot-password', '', { email: oldEmail })).status).toBe(202);
    const resetToken = await newMailedToken(oldEmail, '/reset-password');

    const token = await newMailedToken(newEmail, '/verify-email');
    const follow = () => call('POST', '/auth/verify-email', '', { token });
    expect((await follow()).status).toBe(200);
    // ...ends with it: whoever still reads that mailbox cannot take the account back.
    const reset = await call('POST', '/auth/reset-password', '', {
      token: resetToken,
      password: 'taken-back-pw-123',
    });
    expect(reset.status).toBe(400);
    expect((await json(await call('GET', `/users/${member.user.id}`, admin), 200)).email).toBe(
      newEmail,
    );
    expect((await newLogin()).status).toBe(200);
    expect((await follow()).status).toBe(400); // single use
    await waitFor(
      async () => (await messagesTo(oldEmail)).some((mail) => mail.includes(newEmail)),
      'the notice to the old address',
    );
    // The full name needs no password.
    expect((await own({ full_name: 'Still Me' })).status).toBe(200);

    const renamed = await json(await own({ username: `r${unique()}` }), 200);
    expect(renamed.username).not.toBe(member.username);
    expect((await own({ full_name: 'After rename' })).status).toBe(401);
    // An administrator changes a user's e-mail without the user's password, at once.
    const third = `third-${member.username}@pelita.test`;
    expect((await call('POST', '/auth/forgot-password', '', { email: newEmail })).status).toBe(202);
    const resetBeforeAdmin = await newMailedToken(newEmail, '/reset-password');
    const byAdmin = await json(await own({ email: third }, admin), 200);
    expect(byAdmin.email).toBe(third);
    expect(byAdmin.pending_email).toBeUndefined();
    const lateReset = await call('POST', '/auth/reset-password', '', {
      token: resetBeforeAdmin,
      password: 'taken-back-pw-123',
    });
    expect(lateReset.status).toBe(400);
  });

  it('deactivating a user ends their sessions and removes them from the policy data', async () => {
    const member = await roleWithUser(60);
    await json(await call('PATCH', `/users/${member.user.id}`, admin, { is_active: false }), 200);
    expect((await call('GET', '/features', member.token)).status).toBe(401);
    await waitFor(async () => {
      const data = (await (await fetch(`${platform.opa.url}/v1/data/user_roles`)).json()) as any;
      return data.result?.[member.username] === undefined;
    }, 'the deactivated user gone from OPA');
    const login = await platform.request('POST', '/auth/login', {
      body: { email: `${member.username}@pelita.test`, password: 'member-pw-123' },
    });
    expect(login.status).toBe(403);
  });

  it('answers with timestamps in APP_TIMEZONE and conflicts as 409', async () => {
    const role = await json(
      await call('POST', '/roles', admin, { name: `tz-${unique()}`, level: 70 }),
      201,
    );
    expect(role.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+07:00$/);
    expect((await call('POST', '/roles', admin, { name: role.name, level: 70 })).status).toBe(409);
    const usersOfRole = await roleWithUser(80);
    expect((await call('DELETE', `/roles/${usersOfRole.role.id}`, admin)).status).toBe(409);
    expect((await call('DELETE', `/roles/${role.id}`, admin)).status).toBe(200);
    expect((await call('GET', `/roles/${role.id}`, admin)).status).toBe(404);
  });

  it('keeps an ordered shortcut access list per role', async () => {
    const { role } = await roleWithUser(90);
    const list = [
      { name: 'chat', label: 'Chat', path: '/chat' },
      { name: 'docs', label: 'Documents', path: '/knowledge/documents' },
    ];
    type List = { shortcuts: Array<{ position: number; name: string }> };
    const put = await json<List>(
      await call('PUT', `/roles/${role.id}/shortcuts`, admin, { shortcuts: list }),
      200,
    );
    expect(put.shortcuts.map((s) => [s.position, s.name])).toEqual([
      [0, 'chat'],
      [1, 'docs'],
    ]);
    const reordered = await json<List>(
      await call('PUT', `/roles/${role.id}/shortcuts`, admin, { shortcuts: [list[1], list[0]] }),
      200,
    );
    expect(reordered.shortcuts.map((s) => s.name)).toEqual(['docs', 'chat']);
    expect(
      (await json(await call('GET', `/roles/${role.id}/shortcuts`, admin), 200)).shortcuts,
    ).toHaveLength(2);
    const duplicate = await call('PUT', `/roles/${role.id}/shortcuts`, admin, {
      shortcuts: [list[0], list[0]],
    });
    expect(duplicate.status).toBe(400);
    const adminRole = (
      await json<{ data: any[] }>(await call('GET', '/roles', admin), 200)
    ).data.find((r: any) => r.name === 'admin');
    expect(
      (await call('PUT', `/roles/${adminRole.id}/shortcuts`, admin, { shortcuts: list })).status,
    ).toBe(403);
    expect(await json(await call('GET', '/me/shortcuts', admin), 200)).toEqual({
      role_id: adminRole.id,
      shortcuts: [],
    });
  });

  it('lets administrators make a second administrator and manage each other, not their role', async () => {
    const roles = await json<{ data: any[] }>(await call('GET', '/roles', admin), 200);
    const adminRole = roles.data.find((r: any) => r.name === 'admin');
    const username = `a${unique()}`;
    const second = await json(
      await call('POST', '/users', admin, {
        email: `${username}@pelita.test`,
        username,
        full_name: 'Second Admin',
        password: 'second-admin-pw-1',
        role_id: adminRole.id,
      }),
      201,
    );
    await waitFor(() => platform.allows(username, 'PATCH', '/users/x'), 'the second admin in OPA');
    const token = (await platform.login(`${username}@pelita.test`, 'second-admin-pw-1'))
      .access_token;
    const users = await json<{ data: any[] }>(await call('GET', '/users?limit=200', token), 200);
    const first = users.data.find((u: any) => u.username === ADMIN.username);
    // Peers at the top level: each may change the other.
    await json(await call('PATCH', `/users/${first.id}`, token, { full_name: 'First Admin' }), 200);
    await json(await call('PATCH', `/users/${second.id}`, admin, { full_name: 'Second' }), 200);
    // The top role itself stays out of reach, as every role at or above one's level.
    expect(
      (await call('PUT', `/roles/${adminRole.id}`, token, { name: 'admin', level: 2 })).status,
    ).toBe(403);
    await json(await call('DELETE', `/users/${second.id}`, admin), 200);
  });

  it('counts each sync trigger once it has reached policy-sync', async () => {
    const success = (target: string) =>
      platform.metric('user_service_policy_sync_triggers_total', { target, outcome: 'success' });
    await platform.service.outbox!.drained();
    const before = { grants: await success('role-grants'), users: await success('role-users') };
    await roleWithUser(70); // a role (role-grants), then a user holding it (role-users)
    await platform.service.outbox!.drained();
    expect({
      grants: (await success('role-grants')) - before.grants,
      users: (await success('role-users')) - before.users,
    }).toEqual({ grants: 1, users: 1 });
  });
});
