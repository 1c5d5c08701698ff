/** What the folders service does with its repository, for a member who may use the folders. */
import type { FolderRecord, FolderRepository } from '../../src/documents/folder-repository';
import { createFolders } from '../../src/documents/folders';
import { editor, editorWorkspace, fakeRepository, openAccess } from './knowledge-fakes';

const FOLDER = '00000000-0000-4000-8000-0000000000bb';
const BELOW = '00000000-0000-4000-8000-0000000000b1';

describe('folders service', () => {
  it('refuses to move a folder below itself (409) before changing anything', async () => {
    const { access } = openAccess();
    const folders = createFolders(
      fakeRepository<FolderRepository>({
        byId: (id) => Promise.resolve({ id } as FolderRecord),
        isAtOrAbove: (id, folderId) => Promise.resolve(id === FOLDER && folderId === BELOW),
      }),
      access,
      editorWorkspace,
    );
    await expect(folders.update(editor, FOLDER, { parentId: BELOW })).rejects.toMatchObject({
      status: 409,
    });
  });

  it('lists the top level through the access lists when asked for the root', async () => {
    const { access, asked } = openAccess();
    const listings: unknown[] = [];
    const folders = createFolders(
      fakeRepository<FolderRepository>({
        listing: (parentId) => {
          listings.push(parentId);
          return { alias: 'f', orderBy: 'f.name' };
        },
      }),
      access,
      editorWorkspace,
    );
    await folders.list(editor, { page: 1, limit: 10, parentId: null });
    expect(listings).toEqual([null]);
    expect(asked).toEqual([['page', 'folder', { alias: 'f', orderBy: 'f.name' }]]);
  });

  it('forgets the access list of every folder the deletion took', async () => {
    const { access, asked } = openAccess();
    const folders = createFolders(
      fakeRepository<FolderRepository>({
        byId: (id) => Promise.resolve({ id } as FolderRecord),
        removeTree: () => Promise.resolve([FOLDER, BELOW]),
      }),
      access,
      editorWorkspace,
    );
    await folders.remove(editor, FOLDER);
    expect(asked.filter(([what]) => what === 'forget')).toEqual([
      ['forget', 'folder', FOLDER],
      ['forget', 'folder', BELOW],
    ]);
  });
});
