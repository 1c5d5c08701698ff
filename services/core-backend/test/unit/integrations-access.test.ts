/**
 * Integrations and iframes decide access themselves: every member-facing function takes
 * workspace.manage, refused before any query or bridge call.
 */
import type { SecretBox } from '../../src/crypto/secret-box';
import { createIframeRepository } from '../../src/workspace-config/iframe-repository';
import { createIframes } from '../../src/workspace-config/iframes';
import { createIntegrationRepository } from '../../src/workspace-config/integration-repository';
import { createIntegrations } from '../../src/workspace-config/integrations';
import type { MessagingBridge } from '../../src/workspace-config/messaging-bridge';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const ID = '00000000-0000-4000-8000-000000000022';
const page = { page: 1, limit: 5 };

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const bridge = new Proxy({} as MessagingBridge, {
    get: (_t, key) => () => {
      data.uses.push(`bridge.${String(key)}`);
      return Promise.reject(new Error('bridge was reached'));
    },
  });
  return {
    workspaces,
    data,
    integrations: createIntegrations(
      createIntegrationRepository(data.pool),
      {} as SecretBox,
      bridge,
      workspaces,
    ),
    iframes: createIframes(createIframeRepository(data.pool), workspaces),
  };
}
type Setup = ReturnType<typeof setup>;

describe('integrations, iframes and access', () => {
  it.each([
    ['integrations.list', (s: Setup) => s.integrations.list(viewer, page)],
    ['integrations.find', (s: Setup) => s.integrations.find(viewer, ID)],
    ['integrations.create', (s: Setup) => s.integrations.create(viewer, {} as never)],
    ['integrations.update', (s: Setup) => s.integrations.update(viewer, ID, {})],
    ['integrations.remove', (s: Setup) => s.integrations.remove(viewer, ID)],
    ['integrations.check', (s: Setup) => s.integrations.check(viewer, ID)],
    ['iframes.list', (s: Setup) => s.iframes.list(viewer, page)],
    ['iframes.find', (s: Setup) => s.iframes.find(viewer, ID)],
    ['iframes.create', (s: Setup) => s.iframes.create(viewer, {} as never)],
    ['iframes.update', (s: Setup) => s.iframes.update(viewer, ID, {})],
    ['iframes.remove', (s: Setup) => s.iframes.remove(viewer, ID)],
  ])('refuses a viewer %s with 403 (workspace.manage) before anything', async (_n, call) => {
    const context = setup();
    await expect(call(context)).rejects.toEqual(refused(403));
    expect(context.workspaces.asked).toEqual(['workspace.manage']);
    expect(context.data.uses).toEqual([]);
  });

  it('answers an outsider 404', async () => {
    const context = setup();
    await expect(context.integrations.list(outsider, page)).rejects.toEqual(refused(404));
    await expect(context.iframes.find(outsider, ID)).rejects.toEqual(refused(404));
    expect(context.data.uses).toEqual([]);
  });
});
