/**
 * Schemathesis against the db-proxy's `/api-docs.json`: documented answers only, invalid input
 * rejected with a 4xx, no crash. The connection headers are fixed to a database of this suite
 * (schemathesis' own header values are replaced), read-only, and ALLOWED_DB_HOSTS admits the
 * loopback address alone, so generated input never reaches anything but the test server.
 */
import { runSchemathesis } from '@pelita/fuzz';
import { createPostgresDatabase, startProxy, type Database, type Proxy } from './harness';

describe('db-proxy under schemathesis', () => {
  let database: Database;
  let proxy: Proxy;

  beforeAll(async () => {
    database = await createPostgresDatabase('fuzz');
    await database.admin('CREATE TABLE notes (id serial PRIMARY KEY, body text)');
    proxy = await startProxy({ ALLOWED_DB_HOSTS: '127.0.0.1', READ_ONLY: 'true' });
  });
  afterAll(async () => {
    await proxy?.stop();
    await database?.drop();
  });

  it('finds no undocumented answer and no crash', async () => {
    const result = await runSchemathesis({
      baseUrl: proxy.url,
      maxExamples: 60,
      headers: database.headers,
    });
    if (!result.passed) throw new Error(result.output);
    expect(await database.admin('SELECT count(*)::int AS n FROM notes')).toEqual([{ n: 0 }]);
  }, 300_000);

  it('kept the password out of the logs', () => {
    expect(proxy.logs.lines.join('\n')).not.toContain(database.password);
  });
});
