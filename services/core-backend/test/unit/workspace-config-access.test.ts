/**
 * System prompts and models decide access themselves: any member reads, changing and asking a
 * model's server take workspace.manage; refused before the store or the server is reached.
 */
import type { SystemPrompts } from '../../src/workspace-config/system-prompts';
import { createWorkspaceConfig } from '../../src/workspace-config/workspace-config';
import type { WorkspaceModels } from '../../src/workspace-config/workspace-models';
import { fakeWorkspaces, outsider, refused, viewer, WORKSPACE } from './access-fakes';

const ID = '00000000-0000-4000-8000-000000000011';

function setup() {
  const workspaces = fakeWorkspaces();
  const uses: unknown[][] = [];
  const recorder = (prefix: string) =>
    new Proxy(
      {},
      {
        get:
          (_t, key) =>
          (...args: unknown[]) => {
            uses.push([`${prefix}.${String(key)}`, ...args]);
            return Promise.resolve({});
          },
      },
    );
  const config = createWorkspaceConfig({
    workspaces,
    systemPrompts: recorder('prompts') as SystemPrompts,
    workspaceModels: recorder('store') as WorkspaceModels,
    models: recorder('server') as never,
  });
  return { config, workspaces, uses };
}
type Config = ReturnType<typeof setup>['config'];

describe('workspace configuration and access', () => {
  it.each([
    ['prompts.create', (c: Config) => c.prompts.create(viewer, {} as never)],
    ['prompts.update', (c: Config) => c.prompts.update(viewer, ID, {})],
    ['prompts.remove', (c: Config) => c.prompts.remove(viewer, ID)],
    ['models.create', (c: Config) => c.models.create(viewer, {} as never)],
    ['models.update', (c: Config) => c.models.update(viewer, ID, {})],
    ['models.remove', (c: Config) => c.models.remove(viewer, ID)],
    ['models.check', (c: Config) => c.models.check(viewer, ID)],
  ])('refuses a viewer %s with 403 (workspace.manage) before the store', async (_n, call) => {
    const { config, workspaces, uses } = setup();
    await expect(call(config)).rejects.toEqual(refused(403));
    expect(workspaces.asked).toEqual(['workspace.manage']);
    expect(uses).toEqual([]);
  });

  it('answers an outsider 404 and lets a viewer read, in the workspace asked', async () => {
    const { config, workspaces, uses } = setup();
    await expect(config.prompts.list(outsider, { page: 1, limit: 5 })).rejects.toEqual(
      refused(404),
    );
    await expect(config.models.find(outsider, ID)).rejects.toEqual(refused(404));
    expect(uses).toEqual([]);
    await config.prompts.find(viewer, ID);
    await config.models.list(viewer, { page: 1, limit: 5 });
    expect(workspaces.asked).toEqual([undefined, undefined, undefined, undefined]);
    expect(uses).toEqual([
      ['prompts.find', WORKSPACE, ID],
      ['store.list', WORKSPACE, { page: 1, limit: 5 }],
    ]);
  });
});
