/**
 * Databases and APIs decide access themselves: a viewer reads, never adds, changes or deletes a
 * source or an endpoint; an outsider sees nothing. Refusals come before any query or proxy call.
 */
import { createApiRepository } from '../../src/sources/api-repository';
import { createApis } from '../../src/sources/apis';
import { createDatabaseRepository } from '../../src/sources/database-repository';
import { createDatabases } from '../../src/sources/databases';
import type { SecretBox } from '../../src/crypto/secret-box';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const ID = '00000000-0000-4000-8000-0000000000ee';
const page = { page: 1, limit: 10 };

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const proxy = new Proxy(
    {},
    {
      get: (_t, key) => () => {
        data.uses.push(`proxy.${String(key)}`);
        return Promise.reject(new Error('proxy was reached'));
      },
    },
  );
  const common = { access: data.access, workspaces, box: {} as SecretBox };
  return {
    workspaces,
    data,
    databases: createDatabases({
      ...common,
      repository: createDatabaseRepository(data.pool, data.access),
      dbProxy: proxy as never,
    }),
    apis: createApis({
      ...common,
      repository: createApiRepository(data.pool, data.access),
      httpProxy: proxy as never,
    }),
  };
}
type Setup = ReturnType<typeof setup>;
const api = { name: 'a', description: '', base_url: 'https://a.test', auth: { type: 'none' } };
const endpoint = { name: 'e', description: '', method: 'get', path: '/x', params: [] };

describe('sources and access', () => {
  it.each([
    ['databases.create', (s: Setup) => s.databases.create(viewer, {} as never)],
    ['databases.update', (s: Setup) => s.databases.update(viewer, ID, {})],
    ['databases.remove', (s: Setup) => s.databases.remove(viewer, ID)],
    ['apis.create', (s: Setup) => s.apis.create(viewer, api as never)],
    ['apis.update', (s: Setup) => s.apis.update(viewer, ID, api as never)],
    ['apis.remove', (s: Setup) => s.apis.remove(viewer, ID)],
    ['apis.createEndpoint', (s: Setup) => s.apis.createEndpoint(viewer, ID, endpoint as never)],
    ['apis.updateEndpoint', (s: Setup) => s.apis.updateEndpoint(viewer, ID, ID, {})],
    ['apis.removeEndpoint', (s: Setup) => s.apis.removeEndpoint(viewer, ID, ID)],
  ])(
    'refuses a viewer %s with 403 (knowledge.write) before touching anything',
    async (_n, call) => {
      const context = setup();
      await expect(call(context)).rejects.toEqual(refused(403));
      expect(context.workspaces.asked).toEqual(['knowledge.write']);
      expect(context.data.uses).toEqual([]);
    },
  );

  it.each([
    ['databases.list', (s: Setup) => s.databases.list(outsider, page)],
    ['databases.find', (s: Setup) => s.databases.find(outsider, ID)],
    ['databases.test', (s: Setup) => s.databases.test(outsider, ID)],
    ['databases.tables', (s: Setup) => s.databases.tables(outsider, ID)],
    ['apis.list', (s: Setup) => s.apis.list(outsider, page)],
    ['apis.find', (s: Setup) => s.apis.find(outsider, ID)],
    ['apis.endpoints', (s: Setup) => s.apis.endpoints(outsider, ID, page)],
    ['apis.findEndpoint', (s: Setup) => s.apis.findEndpoint(outsider, ID, ID)],
    ['apis.tryEndpoint', (s: Setup) => s.apis.tryEndpoint(outsider, ID, ID, {})],
  ])('answers an outsider %s with 404 (knowledge.read) before anything', async (_n, call) => {
    const context = setup();
    await expect(call(context)).rejects.toEqual(refused(404));
    expect(context.workspaces.asked).toEqual(['knowledge.read']);
    expect(context.data.uses).toEqual([]);
  });

  it('lets a viewer test a database: its access list is asked, the proxy is not reached', async () => {
    const { databases, data } = setup();
    await expect(databases.test(viewer, ID)).rejects.toThrow('access.requireVisible was reached');
    expect(data.uses).toEqual(['access.requireVisible']);
  });
});
