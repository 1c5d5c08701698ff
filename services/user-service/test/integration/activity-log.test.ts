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

  it('does not record reads, and filters by action, time and page', async () => {
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
    expect(everything.data.filter((entry) => entry.action.startsWith('GET'))).toEqual([]);

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
});
