/** The user activity log against the real OpenSearch: actions recorded after the answer, queried back filtered and paged. */
import { randomBytes } from 'node:crypto';
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
});
