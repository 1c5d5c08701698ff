/**
 * The core backend's user actions in the activity log the user service keeps: one entry per
 * action, in the same index and shape, so the user service's `GET /activity-logs` shows both.
 * Reads and calls by programs (the user service's name copy on /utils) are not actions.
 */
import { randomBytes } from 'node:crypto';
import { requireEnv, waitFor } from '@pelita/testenv';
import { ADMIN, expectJson, startCoreStack, type CoreStack } from './support/core-stack';

const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
const INDEX = `user-activity-log-core-${randomBytes(4).toString('hex')}`;

interface Entry {
  user_id: string | null;
  username: string | null;
  action: string;
  method: string;
  path: string;
  status_code: number;
}

describe('activity log of the core backend', () => {
  let core: CoreStack;

  beforeAll(async () => {
    core = await startCoreStack(
      { INDEX_USER_ACTIVITY_LOG: INDEX },
      { OPENSEARCH_URL, INDEX_USER_ACTIVITY_LOG: INDEX },
    );
  }, 120_000);
  afterAll(async () => {
    await core?.stop();
    await fetch(`${OPENSEARCH_URL}/${INDEX}`, { method: 'DELETE' });
  });

  it("records each action with the user, readable through the user service's activity log", async () => {
    const admin = await core.admin();
    // Creating a user makes the user service copy the name here (PUT /utils/...): not an action.
    await core.user('carol');
    const workspace = await expectJson<{ id: string }>(
      core.call('POST', '/api/workspaces', admin.token, { name: 'Logged' }),
      201,
    );
    await expectJson(
      core.call('PATCH', `/api/workspaces/${workspace.id}`, admin.token, { name: 'Logged 2' }),
      200,
    );
    await expectJson(core.call('GET', `/api/workspaces/${workspace.id}`, admin.token), 200);
    const missing = crypto.randomUUID();
    await expectJson(core.call('DELETE', `/api/workspaces/${missing}`, admin.token), 404);

    let entries: Entry[] = [];
    await waitFor(async () => {
      await core.platform.service.activity?.refresh();
      const page = await expectJson<{ data: Entry[] }>(
        core.platform.request('GET', `/activity-logs?username=${ADMIN.username}&limit=100`, {
          token: admin.token,
        }),
        200,
      );
      entries = page.data.filter((entry) => entry.path.startsWith('/api/'));
      return entries.length >= 3;
    }, 'the core backend actions in the log');

    expect(entries.map((e) => [e.action, e.path, e.status_code]).reverse()).toEqual([
      ['POST /api/workspaces', '/api/workspaces', 201],
      ['PATCH /api/workspaces/:workspaceId', `/api/workspaces/${workspace.id}`, 200],
      ['DELETE /api/workspaces/:workspaceId', `/api/workspaces/${missing}`, 404],
    ]);
    expect(entries.every((e) => e.user_id === admin.id && e.username === ADMIN.username)).toBe(
      true,
    );

    const all = await expectJson<{ data: Entry[] }>(
      core.platform.request('GET', '/activity-logs?limit=200', { token: admin.token }),
      200,
    );
    expect(all.data.filter((e) => e.path.startsWith('/utils/') || e.method === 'GET')).toEqual([]);
  });
});
