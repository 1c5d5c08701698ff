/** Folders decide access themselves: a viewer reads, never changes; an outsider sees nothing. */
import { createFolders } from '../../src/documents/folders';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const FOLDER = '00000000-0000-4000-8000-0000000000bb';

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  return { workspaces, data, folders: createFolders(data.repository(), data.access, workspaces) };
}
type Folders = ReturnType<typeof setup>['folders'];

describe('folders and access', () => {
  it.each([
    ['create', (f: Folders) => f.create(viewer, { name: 'n', parentId: null })],
    ['update', (f: Folders) => f.update(viewer, FOLDER, { name: 'n' })],
    ['remove', (f: Folders) => f.remove(viewer, FOLDER)],
  ])(
    'refuses a viewer %s with 403 (knowledge.write) before touching the data',
    async (_n, call) => {
      const { folders, workspaces, data } = setup();
      await expect(call(folders)).rejects.toEqual(refused(403));
      expect(workspaces.asked).toEqual(['knowledge.write']);
      expect(data.uses).toEqual([]);
    },
  );

  it('lets a viewer read (knowledge.read), and answers an outsider 404 before any query', async () => {
    const { folders, workspaces, data } = setup();
    await expect(folders.find(viewer, FOLDER)).rejects.toThrow('access.requireVisible was reached');
    await expect(folders.list(outsider, { page: 1, limit: 10 })).rejects.toEqual(refused(404));
    await expect(folders.find(outsider, FOLDER)).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['knowledge.read', 'knowledge.read', 'knowledge.read']);
    expect(data.uses).toEqual(['access.requireVisible']);
  });
});
