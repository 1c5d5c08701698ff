/** The user activity log against the real OpenSearch: actions recorded after the answer, queried back filtered and paged. */
import { randomBytes } from 'node:crypto';
import { createActivityRepository } from '@pelita/kit';
import { requireEnv, waitFor } from '@pelita/testenv';
import { ADMIN, startPlatform, type Platform } from './support/platform';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
const INDEX = `user-activity-log-test-${randomBytes(4).toString('hex')}`;

interface Page {
  data: Array<{
    action: string;
    path: string;
    username: string | null;
    status_code: number;
    timestamp: string;
    changes?: Array<{ field: string; before: unknown; after: unknown }>;
  }>;
  total: number;
  page: number;
  limit: number;
}

describe('user activity log', () => {
  let platform: Platform;
  let admin: string;

  beforeAll(async () => {
    platform = await startPlatform({
      OPENSEARCH_URL,
      INDEX_USER_ACTIVITY_LOG: INDEX,
      APP_TIMEZONE: 'Asia/Jakarta',
    });
    await waitFor(() => platform.allows(ADMIN.username, 'GET', '/activity-logs'), 'admin grants');
    admin = (await platform.login(ADMIN.email, ADMIN.password)).access_token;
  });
  afterAll(async () => {
    await platform?.stop();
    await fetch(`${OPENSEARCH_URL}/${INDEX}`, { method: 'DELETE' });
  });

  async function search(query: string): Promise<Page> {
    await platform.service.activity?.refresh();
    const res = await platform.request('GET', `/activity-logs?${query}`, { token: admin });
    expect(res.status).toBe(200);
    return (await res.json()) as Page;
  }

  it('records actions (login included) with the user, newest first, in APP_TIMEZONE', async () => {
    const role = await platform.request('POST', '/roles', {
      token: admin,
      body: { name: `act-${randomBytes(3).toString('hex')}`, level: 40 },
    });
    expect(role.status).toBe(201);
    let page: Page | undefined;
    await waitFor(async () => {
      page = await search(`username=${ADMIN.username}`);
      return page.data.some((entry) => entry.action === 'POST /roles');
    }, 'the role creation in the log');
    const actions = page!.data.map((entry) => entry.action);
    expect(actions.indexOf('POST /roles')).toBeLessThan(actions.indexOf('POST /auth/login'));
    expect(page!.data[0]).toMatchObject({ username: ADMIN.username, status_code: 201 });
    expect(page!.data[0]!.timestamp).toMatch(/\+07:00$/);
  });

  it('does not record answered reads, and filters by action, time and page', async () => {
    await platform.request('GET', '/roles', { token: admin });
    // An action after the read: once it is in the log, a record of the read would be too.
    const marker = `/roles/${1_000_000 + randomBytes(3).readUIntBE(0, 3)}`;
    expect((await platform.request('DELETE', marker, { token: admin })).status).toBe(404);
    await waitFor(async () => {
      const deletes = await search(`action=${encodeURIComponent('DELETE /roles/:id')}`);
      return deletes.data.some((entry) => entry.path === marker);
    }, 'the action after the read in the log');
    const everything = await search('limit=100');
    expect(everything.total).toBeLessThanOrEqual(100);
    expect(
      everything.data.filter(
        (entry) => entry.action.startsWith('GET') && ![401, 403].includes(entry.status_code),
      ),
    ).toEqual([]);

    const logins = await search(`action=${encodeURIComponent('POST /auth/login')}`);
    expect(logins.data.every((entry) => entry.action === 'POST /auth/login')).toBe(true);
    expect(logins.total).toBeGreaterThanOrEqual(1);
    const all = await search('limit=1');
    expect(all.data).toHaveLength(1);
    expect(all.total).toBeGreaterThanOrEqual(2);
    const future = await search(`from=${encodeURIComponent('2999-01-01T00:00:00Z')}`);
    expect(future).toEqual({ data: [], total: 0, page: 1, limit: 50 });
  });

  it('records failed attempts without a user', async () => {
    await platform.request('POST', '/auth/login', {
      body: {
        email: `nobody-${randomBytes(3).toString('hex')}@pelita.test`,
        password: 'wrong-pw-1',
      },
    });
    await waitFor(async () => {
      const page = await search(`action=${encodeURIComponent('POST /auth/login')}`);
      return page.data.some((entry) => entry.status_code === 401 && entry.username === null);
    }, 'the failed login in the log');
  });

  it('records requests the guard refuses, reads included, with the user when the token was good', async () => {
    // Without a token: 401, no user.
    expect((await platform.request('GET', '/users')).status).toBe(401);
    // A valid token without the grant: 403, with the user (a fresh account of the `user` role).
    const roles = (await (await platform.request('GET', '/roles', { token: admin })).json()) as {
      data: Array<{ id: number; name: string }>;
    };
    const username = `guarded${randomBytes(3).toString('hex')}`;
    const created = await platform.request('POST', '/users', {
      token: admin,
      body: {
        email: `${username}@pelita.test`,
        username,
        full_name: 'Guarded',
        password: 'guarded-pw-123',
        role_id: roles.data.find((role) => role.name === 'user')!.id,
      },
    });
    expect(created.status).toBe(201);
    await waitFor(() => platform.allows(username, 'GET', '/me'), 'the new user in OPA');
    const token = (await platform.login(`${username}@pelita.test`, 'guarded-pw-123')).access_token;
    expect((await platform.request('GET', '/roles', { token })).status).toBe(403);

    await waitFor(async () => {
      const page = await search(`action=${encodeURIComponent('GET /roles')}`);
      return page.data.some((entry) => entry.username === username && entry.status_code === 403);
    }, 'the refused read in the log');
    const users = await search(`action=${encodeURIComponent('GET /users')}`);
    expect(users.data.some((entry) => entry.status_code === 401 && entry.username === null)).toBe(
      true,
    );
    // Reads that were answered stay out.
    expect(
      users.data.every((entry) => entry.status_code === 401 || entry.status_code === 403),
    ).toBe(true);
  });

  it('says what an action changed: the changed fields before and after, secrets hidden', async () => {
    const name = `chg-${randomBytes(3).toString('hex')}`;
    const role = (await (
      await platform.request('POST', '/roles', { token: admin, body: { name, level: 45 } })
    ).json()) as { id: number };
    const username = `chg${randomBytes(3).toString('hex')}`;
    const user = (await (
      await platform.request('POST', '/users', {
        token: admin,
        body: {
          email: `${username}@pelita.test`,
          username,
          full_name: 'Before Name',
          password: 'changes-pw-123',
          role_id: role.id,
        },
      })
    ).json()) as { id: string };
    const patched = await platform.request('PATCH', `/users/${user.id}`, {
      token: admin,
      body: { full_name: 'After Name', is_active: false },
    });
    expect(patched.status).toBe(200);
    const renamed = await platform.request('PUT', `/roles/${role.id}`, {
      token: admin,
      body: { name, level: 46 },
    });
    expect(renamed.status).toBe(200);

    const entryOf = async (action: string, path: string) => {
      let found: Page['data'][number] | undefined;
      await waitFor(async () => {
        const page = await search(`action=${encodeURIComponent(action)}`);
        found = page.data.find((entry) => entry.path === path);
        return found !== undefined;
      }, `${action} in the log`);
      return found!;
    };
    expect((await entryOf('PATCH /users/:id', `/users/${user.id}`)).changes).toEqual([
      { field: 'full_name', before: 'Before Name', after: 'After Name' },
      { field: 'is_active', before: true, after: false },
    ]);
    expect((await entryOf('PUT /roles/:id', `/roles/${role.id}`)).changes).toEqual([
      { field: 'level', before: 45, after: 46 },
    ]);
    const created = await entryOf('POST /users', '/users');
    expect(created.changes).toEqual(
      expect.arrayContaining([{ field: 'username', before: null, after: username }]),
    );

    // A password change says so, and the stored document holds neither password.
    const own = await platform.login(ADMIN.email, ADMIN.password);
    const changed = await platform.request('PUT', '/me/password', {
      token: own.access_token,
      body: { current_password: ADMIN.password, new_password: 'Activity-new-pw-77' },
    });
    expect(changed.status).toBe(200);
    // The change ended every other session of the admin: the earlier token among them.
    admin = own.access_token;
    expect((await entryOf('PUT /me/password', '/me/password')).changes).toEqual([
      { field: 'password', before: '[hidden]', after: '[hidden]' },
    ]);
    const back = await platform.request('PUT', '/me/password', {
      token: own.access_token,
      body: { current_password: 'Activity-new-pw-77', new_password: ADMIN.password },
    });
    expect(back.status).toBe(200);
    await platform.service.activity?.refresh();
    const raw = await (await fetch(`${OPENSEARCH_URL}/${INDEX}/_search?size=1000`)).text();
    expect(raw).not.toContain('Activity-new-pw-77');
    expect(raw).not.toContain(ADMIN.password);
    expect(raw).not.toContain('changes-pw-123');
  });
});

describe('an activity index made before entries said what changed', () => {
  const index = `user-activity-log-old-${randomBytes(4).toString('hex')}`;
  afterAll(() => fetch(`${OPENSEARCH_URL}/${index}`, { method: 'DELETE' }));

  it('gets the mapping of changes at start, so values of any type are kept', async () => {
    // The mappings of the earlier version: no `changes`.
    const made = await fetch(`${OPENSEARCH_URL}/${index}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        mappings: { properties: { action: { type: 'keyword' }, timestamp: { type: 'date' } } },
      }),
    });
    expect(made.status).toBe(200);
    const repository = createActivityRepository(OPENSEARCH_URL, index);
    await repository.ensureIndex();
    const entry = (before: unknown, after: unknown) => ({
      userId: null,
      username: 'old-index',
      action: 'PATCH /users/:id',
      method: 'PATCH',
      path: '/users/1',
      statusCode: 200,
      ip: '127.0.0.1',
      userAgent: 'test',
      timestamp: new Date().toISOString(),
      changes: [{ field: 'x', before, after }],
    });
    // Left to dynamic mapping, the first (boolean) would refuse the second (text).
    await repository.record(entry(true, false));
    await repository.record(entry('text', { nested: 1 }));
    await repository.refresh();
    const { entries } = await repository.search({ page: 1, limit: 10 });
    expect(entries.map((found) => found.changes?.[0]?.before)).toEqual(
      expect.arrayContaining([true, 'text']),
    );
    await repository.close();
  });
});
