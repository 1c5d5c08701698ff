/**
 * Document folders through the real stack: a tree per workspace whose access lists decide who
 * sees a folder; a folder cannot move below itself, and deleting one takes its sub-folders.
 */
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

interface Folder {
  id: string;
  parent_id: string | null;
  name: string;
}

describe('folders', () => {
  let stack: CoreStack;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let folders: string;

  beforeAll(async () => {
    stack = await startCoreStack();
    admin = await stack.admin();
    alice = await stack.user('alice');
    bob = await stack.user('bob');
    const workspace = await expectJson<{ id: string }>(
      stack.call('POST', '/api/workspaces', admin.token, { name: 'Folders' }),
      201,
    );
    for (const [user, role] of [
      [alice, 'editor'],
      [bob, 'viewer'],
    ] as const) {
      await expectJson(
        stack.call('PUT', `/api/workspaces/${workspace.id}/users/${user.id}`, admin.token, {
          role,
        }),
        200,
      );
    }
    folders = `/api/workspaces/${workspace.id}/folders`;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps a tree its maker sees, and no one else it is not shared with', async () => {
    const top = await expectJson<Folder>(
      stack.call('POST', folders, alice.token, { name: 'Contracts' }),
      201,
    );
    const below = await expectJson<Folder>(
      stack.call('POST', folders, alice.token, { name: '2026', parent_id: top.id }),
      201,
    );
    expect(below.parent_id).toBe(top.id);
    await expectJson(stack.call('POST', folders, alice.token, { name: 'Contracts' }), 409);
    await expectJson(
      stack.call('PATCH', `${folders}/${top.id}`, alice.token, { parent_id: below.id }),
      409,
    );
    await expectJson(stack.call('POST', folders, bob.token, { name: 'Mine' }), 403);

    // A page answers its position, not the filter it was asked with.
    expect(
      await expectJson(stack.call('GET', `${folders}?parent_id=root`, alice.token), 200),
    ).toEqual({ data: [expect.objectContaining({ id: top.id })], total: 1, page: 1, limit: 50 });
    const inTop = await expectJson<{ data: Folder[] }>(
      stack.call('GET', `${folders}?parent_id=${top.id}`, alice.token),
      200,
    );
    expect(inTop.data.map((f) => f.id)).toEqual([below.id]);

    const bobs = await expectJson<{ total: number }>(stack.call('GET', folders, bob.token), 200);
    expect(bobs.total).toBe(0);
    await expectJson(stack.call('GET', `${folders}/${top.id}`, bob.token), 404);

    const renamed = await expectJson<Folder>(
      stack.call('PATCH', `${folders}/${below.id}`, alice.token, { name: '2027', parent_id: null }),
      200,
    );
    expect([renamed.name, renamed.parent_id]).toEqual(['2027', null]);
    await expectJson(
      stack.call('PATCH', `${folders}/${below.id}`, alice.token, { parent_id: top.id }),
      200,
    );

    expect(
      await expectJson(stack.call('DELETE', `${folders}/${top.id}`, alice.token), 200),
    ).toEqual({
      deleted: true,
    });
    await expectJson(stack.call('GET', `${folders}/${below.id}`, alice.token), 404);
  });
});
