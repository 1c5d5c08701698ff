/** Access lists as members read and replace them: the member and permission are decided first. */
import { createResourceAccess } from '../../src/access/resource-access';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const ID = '00000000-0000-4000-8000-0000000000ff';

describe('resource access lists', () => {
  it('answers an outsider 404 before reading or replacing any list', async () => {
    const workspaces = fakeWorkspaces();
    const { access, uses } = untouched();
    const lists = createResourceAccess(access, workspaces);
    await expect(lists.users(outsider, 'document', ID)).rejects.toEqual(refused(404));
    await expect(lists.replace(outsider, 'topic', ID, ['viewer'])).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['knowledge.read', undefined]);
    expect(uses).toEqual([]);
  });

  it("reads a list only after the resource's own list lets the viewer see it", async () => {
    const workspaces = fakeWorkspaces();
    const { access, uses } = untouched();
    await expect(
      createResourceAccess(access, workspaces).users(viewer, 'audio', ID),
    ).rejects.toThrow('access.requireVisible was reached');
    expect(uses).toEqual(['access.requireVisible']);
  });

  it("hands a viewer's replacement to the access lists with the viewer's membership", async () => {
    const workspaces = fakeWorkspaces();
    const { access, uses } = untouched();
    await expect(
      createResourceAccess(access, workspaces).replace(viewer, 'folder', ID, []),
    ).rejects.toThrow('access.replace was reached');
    expect(uses).toEqual(['access.replace']);
  });
});
