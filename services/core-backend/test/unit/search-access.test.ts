/** Search decides access itself: knowledge.read first, then the workspace's settings and retrieval. */
import { createSearch } from '../../src/retrieval/search';
import type { WorkspaceSettings } from '../../src/workspaces/workspace-settings';
import { fakeWorkspaces, outsider, refused, viewer, WORKSPACE } from './access-fakes';

function setup() {
  const workspaces = fakeWorkspaces();
  const calls: unknown[][] = [];
  const settings = { top_k: 7, retrieval_mode: 'hybrid' } as unknown as WorkspaceSettings;
  const search = createSearch({
    workspaces: {
      access: workspaces.access,
      get: (id: string) => {
        calls.push(['get', id]);
        return Promise.resolve({ settings } as never);
      },
    },
    retrieve: (member, query, scope) => {
      calls.push(['retrieve', member, { query, ...scope }]);
      return Promise.resolve([]);
    },
  });
  return { search, workspaces, calls, settings };
}

describe('search and access', () => {
  it('answers an outsider 404 before reading the workspace or retrieving', async () => {
    const { search, workspaces, calls } = setup();
    await expect(search(outsider, { query: 'q' })).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['knowledge.read']);
    expect(calls).toEqual([]);
  });

  it("retrieves as the viewer's membership, with the workspace's settings and topics", async () => {
    const { search, calls, settings } = setup();
    await search(viewer, { query: 'q', topicIds: ['t'], k: 3 });
    expect(calls).toEqual([
      ['get', WORKSPACE],
      [
        'retrieve',
        expect.objectContaining({ userId: 'viewer', role: 'viewer' }),
        { query: 'q', settings, narrowTo: { documentIds: [], topicIds: ['t'] }, k: 3 },
      ],
    ]);
  });
});
