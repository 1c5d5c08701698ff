/**
 * Workspaces, members, workspace roles and app keys through the real user service, OPA and
 * policy-sync: who may see and change what.
 */
import pg from 'pg';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

describe('workspaces', () => {
  let stack: CoreStack;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    stack = await startCoreStack();
    admin = await stack.admin();
    alice = await stack.user('alice');
    bob = await stack.user('bob');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const createWorkspace = (name: string, token = admin.token) =>
    expectJson<{ id: string; role: string; settings: Record<string, unknown> }>(
      stack.call('POST', '/api/workspaces', token, { name }),
      201,
    );

  it('refuses a request without a token (401) and a user without the create grant (403)', async () => {
    await expectJson(stack.call('GET', '/api/workspaces'), 401);
    const refused = await expectJson<{ error: { code: string } }>(
      stack.call('POST', '/api/workspaces', alice.token, { name: 'mine' }),
      403,
    );
    expect(refused.error.code).toBe('forbidden');
  });

  it('makes the creator owner with default settings, and shows it only to members', async () => {
    const workspace = await createWorkspace('Sales');
    expect(workspace.role).toBe('owner');
    expect(workspace.settings).toEqual({ top_k: 5, retrieval_mode: 'hybrid', temperature: 0.7 });

    // Not a member: the workspace does not exist for them.
    const hidden = await expectJson<{ error: { code: string } }>(
      stack.call('GET', `/api/workspaces/${workspace.id}`, bob.token),
      404,
    );
    expect(hidden.error.code).toBe('workspace_not_found');
    const bobs = await expectJson<{ data: unknown[]; total: number }>(
      stack.call('GET', '/api/workspaces', bob.token),
      200,
    );
    expect(bobs.total).toBe(0);

    await expectJson(
      stack.call('PUT', `/api/workspaces/${workspace.id}/users/${alice.id}`, admin.token, {
        role: 'editor',
      }),
      200,
    );
    const alices = await expectJson<{ data: Array<{ id: string; role: string }>; total: number }>(
      stack.call('GET', '/api/workspaces', alice.token),
      200,
    );
    expect(alices.data.map((w) => [w.id, w.role])).toEqual([[workspace.id, 'editor']]);
  });

  it('lets the workspace role decide: an editor cannot rename or add members', async () => {
    const workspace = await createWorkspace('Support');
    const members = `/api/workspaces/${workspace.id}/users`;
    await expectJson(
      stack.call('PUT', `${members}/${alice.id}`, admin.token, { role: 'editor' }),
      200,
    );

    await expectJson(
      stack.call('PATCH', `/api/workspaces/${workspace.id}`, alice.token, { name: 'Mine now' }),
      403,
    );
    await expectJson(
      stack.call('PUT', `${members}/${bob.id}`, alice.token, { role: 'viewer' }),
      403,
    );
    await expectJson(
      stack.call('PUT', `${members}/${alice.id}`, alice.token, { role: 'owner' }),
      403,
    );

    const renamed = await expectJson<{ name: string }>(
      stack.call('PATCH', `/api/workspaces/${workspace.id}`, admin.token, { name: 'Support desk' }),
      200,
    );
    expect(renamed.name).toBe('Support desk');
  });

  it('keeps at least one owner and lets members leave', async () => {
    const workspace = await createWorkspace('Legal');
    const members = `/api/workspaces/${workspace.id}/users`;
    const lastOwner = await expectJson<{ error: { code: string } }>(
      stack.call('DELETE', `${members}/${admin.id}`, admin.token),
      409,
    );
    expect(lastOwner.error.code).toBe('conflict');
    await expectJson(
      stack.call('PUT', `${members}/${admin.id}`, admin.token, { role: 'viewer' }),
      409,
    );

    await expectJson(
      stack.call('PUT', `${members}/${bob.id}`, admin.token, { role: 'viewer' }),
      200,
    );
    await expectJson(stack.call('DELETE', `${members}/${bob.id}`, bob.token), 200);
    await expectJson(stack.call('GET', `/api/workspaces/${workspace.id}`, bob.token), 404);
  });

  it('refuses unknown users and unknown roles as members', async () => {
    const workspace = await createWorkspace('Ops');
    const members = `/api/workspaces/${workspace.id}/users`;
    const unknown = await expectJson<{ error: { code: string } }>(
      stack.call('PUT', `${members}/no-such-user`, admin.token, { role: 'viewer' }),
      404,
    );
    expect(unknown.error.code).toBe('user_not_found');
    await expectJson(
      stack.call('PUT', `${members}/${bob.id}`, admin.token, { role: 'chief' }),
      400,
    );
  });

  it('takes settings with defaults and refuses values out of range', async () => {
    const workspace = await createWorkspace('Research');
    const path = `/api/workspaces/${workspace.id}/settings`;
    const saved = await expectJson(stack.call('PUT', path, admin.token, { top_k: 8 }), 200);
    expect(saved).toEqual({ top_k: 8, retrieval_mode: 'hybrid', temperature: 0.7 });
    const bad = await expectJson<{ error: { code: string } }>(
      stack.call('PUT', path, admin.token, { top_k: 500 }),
      400,
    );
    expect(bad.error.code).toBe('invalid_request');
  });

  it('deletes a workspace with its members', async () => {
    const workspace = await createWorkspace('Temp');
    await expectJson(stack.call('DELETE', `/api/workspaces/${workspace.id}`, admin.token), 200);
    await expectJson(stack.call('GET', `/api/workspaces/${workspace.id}`, admin.token), 404);
  });

  describe('workspace roles', () => {
    it('has the built-in three, which cannot be changed', async () => {
      const roles = await expectJson<{ data: Array<{ name: string; builtin: boolean }> }>(
        stack.call('GET', '/api/workspace-roles', alice.token),
        200,
      );
      expect(roles.data.filter((r) => r.builtin).map((r) => r.name)).toEqual([
        'owner',
        'editor',
        'viewer',
      ]);
      await expectJson(
        stack.call('PUT', '/api/workspace-roles/viewer', admin.token, {
          permissions: ['knowledge.all'],
        }),
        403,
      );
    });

    it('lets an administrator add a role, and no one else', async () => {
      const body = { name: 'auditor', permissions: ['knowledge.read', 'knowledge.all'] };
      await expectJson(stack.call('POST', '/api/workspace-roles', alice.token, body), 403);
      await expectJson(stack.call('POST', '/api/workspace-roles', admin.token, body), 201);
      await expectJson(stack.call('POST', '/api/workspace-roles', admin.token, body), 409);

      const workspace = await createWorkspace('Audited');
      const member = `/api/workspaces/${workspace.id}/users/${bob.id}`;
      await expectJson(stack.call('PUT', member, admin.token, { role: 'auditor' }), 200);
      await expectJson(stack.call('DELETE', '/api/workspace-roles/auditor', admin.token), 409);
      await expectJson(stack.call('DELETE', member, admin.token), 200);
      await expectJson(stack.call('DELETE', '/api/workspace-roles/auditor', admin.token), 200);
    });
    it('lets members.manage give and take only what its holder holds, and owners only by owners', async () => {
      const steward = {
        name: 'steward',
        permissions: ['members.manage', 'knowledge.read', 'chat'],
      };
      await expectJson(stack.call('POST', '/api/workspace-roles', admin.token, steward), 201);
      const workspace = await createWorkspace('Stewarded');
      const users = `/api/workspaces/${workspace.id}/users`;
      await expectJson(
        stack.call('PUT', `${users}/${bob.id}`, admin.token, { role: 'steward' }),
        200,
      );
      // Not above their own rights: neither owner for themselves nor editor for someone else.
      for (const [who, role] of [
        [bob.id, 'owner'],
        [alice.id, 'editor'],
      ] as const) {
        const refused = await expectJson<{ error: { code: string } }>(
          stack.call('PUT', `${users}/${who}`, bob.token, { role }),
          403,
        );
        expect(refused.error.code).toBe('role_not_grantable');
      }
      // Nor remove an owner.
      await expectJson(stack.call('DELETE', `${users}/${admin.id}`, bob.token), 403);
      // Within their rights: yes.
      await expectJson(
        stack.call('PUT', `${users}/${alice.id}`, bob.token, { role: 'viewer' }),
        200,
      );
      await expectJson(stack.call('DELETE', `${users}/${alice.id}`, bob.token), 200);
    });
  });

  describe('app keys', () => {
    it('shows a key once, keeps only its digest, lists prefixes and revokes', async () => {
      const workspace = await createWorkspace('Keys');
      const keys = `/api/workspaces/${workspace.id}/app-keys`;
      const created = await expectJson<{ id: string; key: string; prefix: string }>(
        stack.call('POST', keys, admin.token, { name: 'website' }),
        201,
      );
      expect(created.key).toMatch(new RegExp(`^pk_${created.prefix}_[A-Za-z0-9_-]{43}$`));

      const listed = await expectJson<{ data: Array<Record<string, unknown>> }>(
        stack.call('GET', keys, admin.token),
        200,
      );
      expect(listed.data).toHaveLength(1);
      expect(listed.data[0]).not.toHaveProperty('key');
      expect(JSON.stringify(listed)).not.toContain(created.key.slice(-43));

      // Nothing in the database holds the secret part in clear.
      const client = new pg.Client({ connectionString: stack.platform.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query(
          'select row_to_json(k)::text as row from core_backend.app_keys k where id = $1',
          [created.id],
        );
        expect(rows).toHaveLength(1);
        expect(rows[0].row).not.toContain(created.key.slice(-43));
      } finally {
        await client.end();
      }

      await expectJson(stack.call('POST', keys, alice.token, { name: 'x' }), 404);
      const revoked = await expectJson<{ revoked_at: string | null }>(
        stack.call('DELETE', `${keys}/${created.id}`, admin.token),
        200,
      );
      expect(revoked.revoked_at).not.toBeNull();
    });
  });

  describe('user names from the user service', () => {
    it('accepts the copy only with the service token and shows the new name', async () => {
      const path = `/utils/update-user-name/${bob.id}`;
      const body = { username: bob.username, full_name: 'Robert Tester' };
      await expectJson(stack.call('PUT', path, undefined, body), 401);
      await expectJson(stack.call('PUT', path, 'wrong-token', body), 401);
      await expectJson(stack.call('PUT', path, stack.serviceToken, body), 200);

      const workspace = await createWorkspace('Names');
      const members = await expectJson<{ data: Array<{ user_id: string; full_name: string }> }>(
        stack.call('PUT', `/api/workspaces/${workspace.id}/users/${bob.id}`, admin.token, {
          role: 'viewer',
        }),
        200,
      );
      expect(members.data.find((m) => m.user_id === bob.id)?.full_name).toBe('Robert Tester');
    });

    it('is copied by the user service when a user changes', async () => {
      const workspace = await createWorkspace('Copies');
      await expectJson(
        stack.call('PUT', `/api/workspaces/${workspace.id}/users/${alice.id}`, admin.token, {
          role: 'viewer',
        }),
        200,
      );
      const changed = await stack.platform.request('PATCH', `/users/${alice.id}`, {
        token: admin.token,
        body: { full_name: 'Alice Renamed' },
      });
      expect(changed.status).toBe(200);
      await stack.platform.service.userNameCopy.idle();
      const members = await expectJson<{ data: Array<{ user_id: string; full_name: string }> }>(
        stack.call('GET', `/api/workspaces/${workspace.id}/users`, admin.token),
        200,
      );
      expect(members.data.find((m) => m.user_id === alice.id)?.full_name).toBe('Alice Renamed');
    });
  });

  it('learns the public key from the user service when JWT_PUBLIC_KEY is not set', async () => {
    const keyless = await startCoreStack({ JWT_PUBLIC_KEY: '' });
    try {
      const boss = await keyless.admin();
      await expectJson(keyless.call('GET', '/api/workspaces', boss.token), 200);
    } finally {
      await keyless.stop();
    }
  });

  describe('administrators', () => {
    it('list every workspace and can take one over; users cannot', async () => {
      const workspace = await createWorkspace('Orphan');
      await expectJson(stack.call('GET', '/api/admin/workspaces', alice.token), 403);
      const all = await expectJson<{ data: Array<{ id: string }> }>(
        stack.call('GET', '/api/admin/workspaces?limit=200', admin.token),
        200,
      );
      expect(all.data.map((w) => w.id)).toContain(workspace.id);
      await expectJson(
        stack.call('PUT', `/api/admin/workspaces/${workspace.id}/owner`, alice.token),
        403,
      );
    });
  });
});
