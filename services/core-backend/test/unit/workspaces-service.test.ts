/**
 * The workspaces service over a small in-memory repository: who may change members, the owner
 * who always remains, the administrators' repair, and workspace roles that cannot be changed.
 */
import type { RoleRepository, WorkspaceRoleRow } from '../../src/workspaces/role-repository';
import type {
  MemberTransaction,
  RoleRow,
  WorkspaceRepository,
  WorkspaceRow,
} from '../../src/workspaces/workspace-repository';
import { createWorkspaceRoles } from '../../src/workspaces/workspace-roles';
import { createWorkspaces } from '../../src/workspaces/workspaces';
import { refused, WORKSPACE } from './access-fakes';

const ROLES: Record<string, string[]> = {
  owner: ['workspace.manage', 'members.manage', 'knowledge.write', 'knowledge.read', 'chat'],
  editor: ['knowledge.write', 'knowledge.read', 'chat'],
  viewer: ['knowledge.read', 'chat'],
  gatekeeper: ['members.manage', 'knowledge.read', 'chat'],
};
const USERS = ['olive', 'eddie', 'vera', 'gate', 'newcomer'];

/** One workspace held in maps; every write is recorded. */
function fakeRepository(members: Record<string, string>) {
  const writes: string[] = [];
  const workspaces = new Map<string, WorkspaceRow>([[WORKSPACE, row(WORKSPACE, 'olive')]]);
  const roleRow = (name: string): RoleRow | undefined =>
    ROLES[name] && { name, permissions: ROLES[name] };
  const repository: WorkspaceRepository = {
    find: (id) => Promise.resolve(workspaces.get(id)),
    membership: (workspaceId, userId) =>
      Promise.resolve(workspaceId === WORKSPACE ? roleRow(members[userId] ?? '') : undefined),
    insert: (workspace) => {
      writes.push(`insert ${workspace.name}`);
      workspaces.set(workspace.id, row(workspace.id, workspace.createdBy));
      return Promise.resolve();
    },
    pageFor: () => Promise.resolve({ rows: [], total: 0 }),
    pageAll: () => Promise.resolve({ rows: [...workspaces.values()], total: workspaces.size }),
    update: (id) => {
      writes.push(`update ${id}`);
      return Promise.resolve();
    },
    members: () =>
      Promise.resolve({
        rows: Object.entries(members).map(([user_id, role]) => ({
          user_id,
          username: user_id,
          full_name: '',
          role,
          created_at: new Date(0),
          updated_at: new Date(0),
        })),
        total: Object.keys(members).length,
      }),
    async memberChange(_workspaceId, change) {
      // A transaction: the change is applied only when nothing throws.
      const draft = { ...members };
      const tx: MemberTransaction = {
        roleOf: (userId) => Promise.resolve(roleRow(draft[userId] ?? '')),
        role: (name) => Promise.resolve(roleRow(name)),
        putMember: (userId, role) => {
          if (!ROLES[role]) return Promise.resolve(false);
          draft[userId] = role;
          return Promise.resolve(true);
        },
        removeMember: (userId) => {
          if (!draft[userId]) return Promise.resolve(false);
          delete draft[userId];
          return Promise.resolve(true);
        },
        owners: () => Promise.resolve(Object.values(draft).filter((r) => r === 'owner').length),
      };
      const result = await change(tx);
      for (const key of Object.keys(members)) delete members[key];
      Object.assign(members, draft);
      writes.push('member change');
      return result;
    },
  };
  return { repository, writes, members };
}

function row(id: string, createdBy: string): WorkspaceRow {
  const at = new Date(0);
  return {
    id,
    name: 'W',
    description: '',
    settings: {},
    created_by: createdBy,
    created_at: at,
    updated_at: at,
  };
}

function setup(members: Record<string, string> = { olive: 'owner', vera: 'viewer' }) {
  const fake = fakeRepository(members);
  const deleted: string[] = [];
  const workspaces = createWorkspaces({
    repository: fake.repository,
    users: { exists: (id) => Promise.resolve(USERS.includes(id)) },
    deletions: {
      workspace: (id) => {
        deleted.push(id);
        return Promise.resolve();
      },
    },
  });
  return { ...fake, workspaces, deleted };
}

describe('workspaces service', () => {
  it('makes the creator owner of a new workspace', async () => {
    const { workspaces, writes } = setup();
    const created = await workspaces.create('eddie', {
      name: 'New',
      description: '',
      settings: { top_k: 5, retrieval_mode: 'hybrid', temperature: 0.7 },
    });
    expect(created).toMatchObject({ createdBy: 'eddie', role: 'owner' });
    expect(writes).toEqual(['insert New']);
  });

  it('lets an owner add a member and answers the members after the change', async () => {
    const { workspaces, members } = setup();
    const page = await workspaces.putMember('olive', WORKSPACE, 'eddie', 'editor');
    expect(members).toEqual({ olive: 'owner', vera: 'viewer', eddie: 'editor' });
    expect(page).toMatchObject({ total: 3, page: 1, limit: 200 });
    expect(page.rows.map((m) => m.userId)).toEqual(['olive', 'vera', 'eddie']);
  });

  it('refuses a viewer (no members.manage) before any member change', async () => {
    const { workspaces, writes } = setup();
    await expect(workspaces.putMember('vera', WORKSPACE, 'eddie', 'viewer')).rejects.toEqual(
      refused(403),
    );
    expect(writes).toEqual([]);
  });

  it('does not let a gatekeeper give a role beyond its own, nor make an owner', async () => {
    const { workspaces, members } = setup({ olive: 'owner', gate: 'gatekeeper' });
    await expect(workspaces.putMember('gate', WORKSPACE, 'eddie', 'editor')).rejects.toEqual(
      refused(403),
    );
    await expect(workspaces.putMember('gate', WORKSPACE, 'gate', 'owner')).rejects.toEqual(
      refused(403),
    );
    await workspaces.putMember('gate', WORKSPACE, 'eddie', 'viewer');
    expect(members).toEqual({ olive: 'owner', gate: 'gatekeeper', eddie: 'viewer' });
  });

  it('answers 400 for a role that does not exist and 404 for a user unknown here', async () => {
    const { workspaces, members } = setup();
    await expect(workspaces.putMember('olive', WORKSPACE, 'eddie', 'wizard')).rejects.toEqual(
      refused(400),
    );
    await expect(workspaces.putMember('olive', WORKSPACE, 'stranger', 'viewer')).rejects.toEqual(
      refused(404),
    );
    expect(members).toEqual({ olive: 'owner', vera: 'viewer' });
  });

  it('keeps the last owner: leaving or being made viewer is a 409, undone', async () => {
    const { workspaces, members } = setup();
    await expect(workspaces.dropMember('olive', WORKSPACE, 'olive')).rejects.toEqual(refused(409));
    await expect(workspaces.putMember('olive', WORKSPACE, 'olive', 'viewer')).rejects.toEqual(
      refused(409),
    );
    expect(members).toEqual({ olive: 'owner', vera: 'viewer' });
  });

  it('lets anyone leave, and answers 404 for removing a non-member', async () => {
    const { workspaces, members } = setup();
    await workspaces.dropMember('vera', WORKSPACE, 'vera');
    expect(members).toEqual({ olive: 'owner' });
    await expect(workspaces.dropMember('olive', WORKSPACE, 'vera')).rejects.toEqual(refused(404));
  });

  it('does not let a gatekeeper remove an owner', async () => {
    const { workspaces, members } = setup({ olive: 'owner', gate: 'gatekeeper' });
    await expect(workspaces.dropMember('gate', WORKSPACE, 'olive')).rejects.toEqual(refused(403));
    expect(members).toEqual({ olive: 'owner', gate: 'gatekeeper' });
  });

  it('deletes the workspace for an owner only', async () => {
    const { workspaces, deleted } = setup();
    await expect(workspaces.destroy('vera', WORKSPACE)).rejects.toEqual(refused(403));
    await workspaces.destroy('olive', WORKSPACE);
    expect(deleted).toEqual([WORKSPACE]);
  });

  it("makes an administrator owner of an existing workspace, 404 for one that isn't", async () => {
    const { workspaces, members } = setup();
    const missing = '00000000-0000-4000-8000-0000000000aa';
    await expect(workspaces.takeOwnership('newcomer', missing)).rejects.toEqual(refused(404));
    expect(await workspaces.takeOwnership('newcomer', WORKSPACE)).toMatchObject({ role: 'owner' });
    expect(members.newcomer).toBe('owner');
  });
});

describe('workspace roles service', () => {
  function roles(rows: WorkspaceRoleRow[]) {
    const removed: string[] = [];
    const repository: RoleRepository = {
      find: (name) => Promise.resolve(rows.find((r) => r.name === name)),
      list: () => Promise.resolve(rows),
      insert: (role) => Promise.resolve(!rows.some((r) => r.name === role.name)),
      update: () => Promise.resolve(),
      removeUnheld: (name) => {
        removed.push(name);
        return Promise.resolve(name !== 'held');
      },
    };
    return { roles: createWorkspaceRoles(repository), removed };
  }
  const stored = (name: string, builtin: boolean): WorkspaceRoleRow => ({
    name,
    description: '',
    permissions: ['chat'],
    builtin,
    created_at: new Date(0),
    updated_at: new Date(0),
  });

  it('refuses to change or delete a built-in role before writing', async () => {
    const { roles: service, removed } = roles([stored('owner', true)]);
    await expect(
      service.update('owner', { description: '', permissions: ['chat'] }),
    ).rejects.toEqual(refused(403));
    await expect(service.remove('owner')).rejects.toEqual(refused(403));
    expect(removed).toEqual([]);
  });

  it('answers 409 for a taken name and for a role members still hold, 404 for none', async () => {
    const { roles: service } = roles([stored('held', false)]);
    await expect(
      service.create({ name: 'held', description: '', permissions: ['chat'] }),
    ).rejects.toEqual(refused(409));
    await expect(service.remove('held')).rejects.toEqual(refused(409));
    await expect(service.remove('nothing')).rejects.toEqual(refused(404));
  });
});
