/**
 * PROXY_SERVICE_TOKEN: with it set, a caller without the token reaches no database (an attacker
 * with a pod in the cluster used to have an open SQL gateway); the token never reaches a log.
 */
import { createDatabase, startProxy, type Database, type Proxy } from './harness';

const SERVICE_TOKEN = 'db-svc-tok-5e7f21';

describe('caller authentication with PROXY_SERVICE_TOKEN', () => {
  let proxy: Proxy;
  let database: Database;

  beforeAll(async () => {
    database = await createDatabase('callertoken', 'postgresql');
    proxy = await startProxy({ PROXY_SERVICE_TOKEN: SERVICE_TOKEN });
  });
  afterAll(async () => {
    await proxy.stop();
    await database.drop();
    expect(proxy.logs.text).not.toContain(SERVICE_TOKEN);
    expect(proxy.logs.text).not.toContain(database.password);
  });

  it.each([
    ['no Authorization', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['the token in another scheme', { authorization: `Basic ${SERVICE_TOKEN}` }],
  ])('answers 401 to a caller with %s, before touching the database', async (_case, headers) => {
    const res = await proxy.execute({ ...database.headers, ...headers }, 'SELECT 1 AS one');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    const tables = await proxy.call('GET', '/tables', { ...database.headers, ...headers });
    expect(tables.status).toBe(401);
  });

  it('runs the statement for a caller with the token', async () => {
    const res = await proxy.execute(
      { ...database.headers, authorization: `Bearer ${SERVICE_TOKEN}` },
      'SELECT 1 AS one',
    );
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('"one"');
  });

  it('leaves /health open', async () => {
    expect((await proxy.call('GET', '/health')).status).toBe(200);
  });
});

describe('without PROXY_SERVICE_TOKEN', () => {
  it('serves callers without a token, as the seed does', async () => {
    const database = await createDatabase('callertokenoff', 'postgresql');
    const proxy = await startProxy();
    try {
      expect((await proxy.execute(database.headers, 'SELECT 1 AS one')).status).toBe(200);
    } finally {
      await proxy.stop();
      await database.drop();
    }
  });
});
