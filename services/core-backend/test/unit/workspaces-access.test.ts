/**
 * A workspace's own reads and changes decide access in the workspaces module: a viewer may read
 * it, its settings and members, but not change, re-set or delete it; nothing past the membership
 * query runs for a refused caller.
 */
import type pg from 'pg';
import type { UserDirectory } from '../../src/users/user-directory';
import { createWorkspaceRepository } from '../../src/workspaces/workspace-repository';
import { createWorkspaces } from '../../src/workspaces/workspaces';
import { refused, WORKSPACE } from './access-fakes';

function setup() {
  const queries: string[] = [];
  const deleted: string[] = [];
  const pool = {
    query: (sql: string, values: unknown[]) => {
      queries.push(sql);
      const viewer = values[1] === 'viewer';
      return Promise.resolve({
        rows: viewer ? [{ role: 'viewer', permissions: ['knowledge.read', 'chat'] }] : [],
      });
    },
  } as unknown as pg.Pool;
  const workspaces = createWorkspaces({
    repository: createWorkspaceRepository(pool),
    users: {} as UserDirectory,
    deletions: {
      workspace: (id: string) => {
        deleted.push(id);
        return Promise.resolve();
      },
    },
  });
  return { workspaces, queries, deleted };
}

describe('workspaces and access', () => {
  it.each([
    ['change', (w: ReturnType<typeof setup>['workspaces']) => w.change('viewer', WORKSPACE, {})],
    ['destroy', (w: ReturnType<typeof setup>['workspaces']) => w.destroy('viewer', WORKSPACE)],
    [
      'replaceSettings',
      (w: ReturnType<typeof setup>['workspaces']) =>
        w.replaceSettings('viewer', WORKSPACE, {} as never),
    ],
  ])(
    'refuses a viewer %s with 403 (workspace.manage) after the membership only',
    async (_n, call) => {
      const { workspaces, queries, deleted } = setup();
      await expect(call(workspaces)).rejects.toEqual(refused(403));
      expect(queries).toHaveLength(1);
      expect(deleted).toEqual([]);
    },
  );

  it('answers an outsider 404 on every read', async () => {
    const { workspaces, queries } = setup();
    await expect(workspaces.show('outsider', WORKSPACE)).rejects.toEqual(refused(404));
    await expect(workspaces.settingsOf('outsider', WORKSPACE)).rejects.toEqual(refused(404));
    await expect(
      workspaces.membersOf('outsider', WORKSPACE, { page: 1, limit: 5 }),
    ).rejects.toEqual(refused(404));
    expect(queries).toHaveLength(3);
  });
});
