/**
 * The workspace configuration services with small fakes of their repositories: what they decide
 * (404 and 409 by name, secrets kept or refused when the destination moves, a widget's app key
 * checked before anything is written, the default model, the install's model as a fallback)
 * and what they hand the repository.
 */
import type { SecretBox } from '../../src/crypto/secret-box';
import { createDashboard } from '../../src/dashboard/dashboard';
import type { DashboardRepository } from '../../src/dashboard/dashboard-repository';
import type { IframeRepository } from '../../src/workspace-config/iframe-repository';
import { createIframes } from '../../src/workspace-config/iframes';
import type { IntegrationRepository } from '../../src/workspace-config/integration-repository';
import { createIntegrations } from '../../src/workspace-config/integrations';
import type { MessagingBridge } from '../../src/workspace-config/messaging-bridge';
import type { SystemPromptRepository } from '../../src/workspace-config/system-prompt-repository';
import { createSystemPrompts } from '../../src/workspace-config/system-prompts';
import type { WorkspaceModelRepository } from '../../src/workspace-config/workspace-model-repository';
import { createWorkspaceModels } from '../../src/workspace-config/workspace-models';
import type { MemberCheck } from '../../src/workspaces/actor';
import { refused, WORKSPACE } from './access-fakes';

const manager = { userId: 'manager', workspaceId: WORKSPACE };
const workspaces: MemberCheck = {
  access: (workspaceId, userId) =>
    Promise.resolve({ workspaceId, userId, role: 'owner', permissions: ['workspace.manage'] }),
};
const box: SecretBox = { seal: (text: string) => `sealed(${text})`, open: (s: string) => s };
const duplicate = () => Promise.reject(Object.assign(new Error('duplicate'), { code: '23505' }));

/** A workspace's rows in memory, and every write handed to the repository. */
function rowsOf<Row extends { id: string }>(rows: Row[]) {
  const writes: unknown[][] = [];
  return {
    writes,
    row: (_w: string, id: string) => Promise.resolve(rows.find((row) => row.id === id)),
    page: (...args: unknown[]) => {
      writes.push(['page', ...args.slice(1)]);
      return Promise.resolve({ rows, total: rows.length });
    },
    delete: (_w: string, id: string) => Promise.resolve(rows.some((row) => row.id === id)),
    write:
      (name: string) =>
      (...args: unknown[]) => {
        writes.push([name, ...args]);
        return Promise.resolve();
      },
  };
}

const integration = {
  id: 'i1',
  type: 'whatsapp' as const,
  name: 'support',
  base_url: 'https://graph.test/v21.0',
  phone_number_id: '123',
  access_token_sealed: 'sealed(old)',
  enabled: true,
};

describe('integrations service', () => {
  const setup = (bridge: Partial<MessagingBridge> = {}) => {
    const rows = rowsOf([integration]);
    const repository = {
      ...rows,
      insert: rows.write('insert'),
      update: rows.write('update'),
      recordCheck: rows.write('recordCheck'),
    } as unknown as IntegrationRepository;
    return {
      rows,
      integrations: createIntegrations(repository, box, bridge as MessagingBridge, workspaces),
    };
  };

  it('keeps the token while the bridge stays, forgets the check when the number changes', async () => {
    const { rows, integrations } = setup();
    await integrations.update(manager, 'i1', { name: 'renamed' });
    await integrations.update(manager, 'i1', { phone_number_id: '456' });
    expect(rows.writes).toEqual([
      ['update', 'i1', WORKSPACE, { ...pick(integration), name: 'renamed' }, false],
      ['update', 'i1', WORKSPACE, { ...pick(integration), phone_number_id: '456' }, true],
    ]);
  });

  it('refuses to send the stored token to a new bridge (400) and answers an unknown id 404', async () => {
    const { rows, integrations } = setup();
    await expect(
      integrations.update(manager, 'i1', { base_url: 'https://elsewhere.test' }),
    ).rejects.toEqual(refused(400));
    await expect(integrations.find(manager, 'nope')).rejects.toMatchObject({
      status: 404,
      code: 'integration_not_found',
    });
    await expect(integrations.remove(manager, 'nope')).rejects.toEqual(refused(404));
    expect(rows.writes).toEqual([]);
  });

  it('records a failed check and throws it', async () => {
    const failure = new Error('bridge said no');
    const { rows, integrations } = setup({ phoneNumber: () => Promise.reject(failure) });
    await expect(integrations.check(manager, 'i1')).rejects.toBe(failure);
    expect(rows.writes).toEqual([['recordCheck', 'i1', { ok: false, error: 'bridge said no' }]]);
  });
});

const pick = (i: typeof integration) => ({
  name: i.name,
  base_url: i.base_url,
  phone_number_id: i.phone_number_id,
  access_token_sealed: i.access_token_sealed,
  enabled: i.enabled,
});

describe('iframes service', () => {
  const theme = {
    title: 'Ask',
    greeting: 'Hi',
    primary_color: '#000000',
    position: 'bottom-right' as const,
    dark_mode: false,
  };
  const iframe = {
    id: 'f1',
    name: 'site',
    allowed_origins: ['https://site.test'],
    app_key_id: 'k1',
    theme,
    enabled: true,
    show_passages: false,
  };
  const setup = (liveKey: boolean) => {
    const rows = rowsOf([iframe]);
    const repository = {
      ...rows,
      liveKey: () => Promise.resolve(liveKey),
      insert: () => duplicate(),
      update: rows.write('update'),
    } as unknown as IframeRepository;
    return { rows, iframes: createIframes(repository, workspaces) };
  };

  it('refuses an app key that is not a live key of the workspace before writing', async () => {
    const { rows, iframes } = setup(false);
    await expect(iframes.create(manager, { ...iframe, app_key_id: 'k2' })).rejects.toEqual(
      refused(400),
    );
    await expect(iframes.update(manager, 'f1', { app_key_id: 'k2' })).rejects.toEqual(refused(400));
    expect(rows.writes).toEqual([]);
  });

  it('merges theme fields into the current theme, and answers a taken name 409', async () => {
    const { rows, iframes } = setup(true);
    await iframes.update(manager, 'f1', { theme: { dark_mode: true } });
    expect(rows.writes).toEqual([
      [
        'update',
        'f1',
        WORKSPACE,
        {
          name: 'site',
          allowed_origins: ['https://site.test'],
          app_key_id: 'k1',
          theme: { ...theme, dark_mode: true },
          enabled: true,
          show_passages: false,
        },
      ],
    ]);
    await expect(iframes.create(manager, iframe)).rejects.toEqual(refused(409));
  });
});

describe('system prompts and models services', () => {
  it('lists prompts with the type filter handed to the repository', async () => {
    const rows = rowsOf([]);
    const prompts = createSystemPrompts(rows as unknown as SystemPromptRepository);
    await prompts.list(WORKSPACE, { page: 2, limit: 5, type: 'report' });
    const [, paging, filters] = rows.writes[0] as [
      string,
      unknown,
      [(r: string) => string, unknown][],
    ];
    expect(paging).toEqual({ page: 2, limit: 5, type: 'report' });
    expect(filters.map(([condition, value]) => [condition('$2'), value])).toEqual([
      ['t.type = $2', 'report'],
    ]);
  });

  it("keeps a model the default unless another is made it, and falls back to the install's", async () => {
    const model = {
      id: 'm1',
      name: 'Main',
      model: 'gpt',
      base_url: null,
      api_key_sealed: null,
      context_window: null,
      is_default: true,
    };
    const rows = rowsOf([model]);
    const repository = {
      ...rows,
      update: rows.write('update'),
      chosen: () => Promise.resolve(undefined),
      ids: () => Promise.resolve([]),
    } as unknown as WorkspaceModelRepository;
    const install = { baseUrl: 'http://llm.test', model: 'local', apiKey: undefined };
    const models = createWorkspaceModels(repository, box, install);
    await models.update(WORKSPACE, 'm1', { name: 'Renamed', is_default: false });
    expect(rows.writes).toEqual([
      [
        'update',
        'm1',
        WORKSPACE,
        {
          name: 'Renamed',
          model: 'gpt',
          base_url: null,
          api_key_sealed: null,
          context_window: null,
        },
        true,
      ],
    ]);
    await expect(models.resolve(WORKSPACE, null)).resolves.toBe(install);
    await expect(models.resolve(WORKSPACE, 'other')).rejects.toEqual(refused(404));
    await expect(models.ids(WORKSPACE)).resolves.toEqual(['local']);
    await expect(
      createWorkspaceModels(repository, box, undefined).resolve(WORKSPACE, null),
    ).rejects.toEqual(refused(503));
  });
});

describe('dashboard service', () => {
  it("reads the figures of the member's workspace", async () => {
    const asked: unknown[] = [];
    const repository = {
      figures: (...args: unknown[]) => {
        asked.push(args);
        return Promise.resolve({});
      },
    } as unknown as DashboardRepository;
    await createDashboard(repository, workspaces).of(manager, 7);
    expect(asked).toEqual([[WORKSPACE, 7]]);
  });
});
