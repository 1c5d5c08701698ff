/**
 * A member managing members gives no more than they hold: a custom role with `members.manage`
 * cannot make its holder (or anyone) owner, nor hand out or take away permissions it lacks.
 * Checked on the workspaces module the role-change route calls, against the real PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createUserRepository } from '../../src/users/user-repository';
import { createWorkspaceRepository } from '../../src/workspaces/workspace-repository';
import { createWorkspaces, type Workspaces } from '../../src/workspaces/workspaces';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

describe('who may give which workspace role', () => {
  let stack: CoreStack;
  let pool: pg.Pool;
  let workspaces: Workspaces;
  let admin: TestUser;
  let gate: TestUser;
  let vera: TestUser;
  let eddie: TestUser;
  let workspaceId: string;
  const gatekeeper = `gatekeeper-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    stack = await startCoreStack();
    admin = await stack.admin();
    [gate, vera, eddie] = [
      await stack.user('gate'),
      await stack.user('vera'),
      await stack.user('eddie'),
    ];
    await expectJson(
      stack.call('POST', '/api/workspace-roles', admin.token, {
        name: gatekeeper,
        permissions: ['members.manage', 'knowledge.read', 'chat'],
      }),
      201,
    );
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', admin.token, { name: 'Gated' }),
        201,
      )
    ).id;
    for (const [user, role] of [
      [gate, gatekeeper],
      [vera, 'viewer'],
      [eddie, 'editor'],
    ] as const) {
      await expectJson(
        stack.call('PUT', `/api/workspaces/${workspaceId}/users/${user.id}`, admin.token, { role }),
        200,
      );
    }
    pool = new pg.Pool({
      connectionString: stack.platform.databaseUrl,
      options: '-c search_path=core_backend',
    });
    workspaces = createWorkspaces({
      repository: createWorkspaceRepository(pool),
      users: createUserRepository(pool),
      deletions: { workspace: () => Promise.reject(new Error('not deleted here')) },
    });
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  const roleOf = async (user: TestUser) => (await workspaces.access(workspaceId, user.id)).role;
  /** What the role-change route does: the caller's membership (members.manage), then the change. */
  const change = async (by: TestUser, user: TestUser, role: string) =>
    workspaces.setMember(
      workspaceId,
      user.id,
      role,
      await workspaces.access(workspaceId, by.id, 'members.manage'),
    );

  it('does not let a custom role with members.manage make itself owner', async () => {
    await expect(change(gate, gate, 'owner')).rejects.toMatchObject({
      status: 403,
      code: 'role_not_grantable',
    });
    expect(await roleOf(gate)).toBe(gatekeeper);
  });

  it('does not let it give a role holding permissions it lacks, nor change a member who holds more', async () => {
    await expect(change(gate, vera, 'editor')).rejects.toMatchObject({ status: 403 });
    await expect(change(gate, eddie, 'viewer')).rejects.toMatchObject({ status: 403 });
    await expect(change(gate, vera, 'owner')).rejects.toMatchObject({ status: 403 });
    expect([await roleOf(vera), await roleOf(eddie)]).toEqual(['viewer', 'editor']);
  });

  it('lets it give what it holds, and an owner give anything', async () => {
    await change(gate, vera, gatekeeper);
    expect(await roleOf(vera)).toBe(gatekeeper);
    await change(admin, vera, 'owner');
    expect(await roleOf(vera)).toBe('owner');
    await change(vera, vera, 'viewer');
    expect(await roleOf(vera)).toBe('viewer');
  });
});
