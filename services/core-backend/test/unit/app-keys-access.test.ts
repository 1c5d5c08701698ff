/**
 * App keys decide access themselves: managing keys takes `workspace.manage` (an outsider is 404,
 * a viewer 403, before the repository), a key's sources must be ones its maker may use, and a key
 * acts as its maker narrowed to its sources, never more than the maker still may.
 */
import { createAppKeys } from '../../src/app-keys/app-keys';
import type { AppKeyRepository } from '../../src/app-keys/app-key-repository';
import { fakeWorkspaces, outsider, refused, untouched, viewer, WORKSPACE } from './access-fakes';

const ID = '00000000-0000-4000-8000-000000000055';
const scope = { sources: [{ type: 'document' as const, id: ID }], reads_sessions_of: [] };

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const repository = new Proxy({} as AppKeyRepository, {
    get: (_t, key) => () => {
      data.uses.push(`repository.${String(key)}`);
      return Promise.reject(new Error('the repository was reached'));
    },
  });
  const appKeys = createAppKeys({
    repository,
    workspaces,
    access: data.access,
    lastUsedIntervalMs: 60_000,
  });
  return { appKeys, workspaces, data };
}
type AppKeys = ReturnType<typeof setup>['appKeys'];

describe('app keys and access', () => {
  it.each([
    ['list', (k: AppKeys, who: typeof viewer) => k.list(who, { page: 1, limit: 10 })],
    ['create', (k: AppKeys, who: typeof viewer) => k.create(who, { name: 'k', ...scope })],
    ['setScope', (k: AppKeys, who: typeof viewer) => k.setScope(who, ID, scope)],
    ['revoke', (k: AppKeys, who: typeof viewer) => k.revoke(who, ID)],
  ])(
    'refuses %s to an outsider (404) and a viewer (403) before the repository',
    async (_n, call) => {
      const { appKeys, workspaces, data } = setup();
      await expect(call(appKeys, outsider)).rejects.toEqual(refused(404));
      await expect(call(appKeys, viewer)).rejects.toEqual(refused(403));
      expect(workspaces.asked).toEqual(['workspace.manage', 'workspace.manage']);
      expect(data.uses).toEqual([]);
    },
  );

  it("acts as the key's maker narrowed to the key's sources", async () => {
    const workspaces = fakeWorkspaces();
    const repository = { resolvedScope: () => Promise.resolve({ document: [ID], audio: [] }) };
    const keys = createAppKeys({
      repository: repository as unknown as AppKeyRepository,
      workspaces,
      access: untouched().access,
      lastUsedIntervalMs: 60_000,
    });
    const key = { id: 'key', workspaceId: WORKSPACE, createdBy: viewer.userId };
    await expect(keys.principal(key, { permission: 'chat', refused: Error })).resolves.toEqual(
      expect.objectContaining({
        userId: viewer.userId,
        scope: { keyId: 'key', document: [ID], audio: [] },
      }),
    );
  });

  it.each([
    ['a key of another workspace', { workspaceId: 'elsewhere' }, 'chat'],
    ['a maker without the permission (left or demoted)', {}, 'workspace.manage'],
  ] as const)('refuses %s', async (_n, options, permission) => {
    const { appKeys, data } = setup();
    const key = { id: 'key', workspaceId: WORKSPACE, createdBy: viewer.userId };
    const refusal = new Error('refused');
    await expect(
      appKeys.principal(key, { permission, refused: () => refusal, ...options }),
    ).rejects.toBe(refusal);
    expect(data.uses).toEqual([]);
  });
});
