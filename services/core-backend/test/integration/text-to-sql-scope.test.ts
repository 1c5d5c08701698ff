/**
 * Text-to-SQL reads only the tables listed to the model: a statement that reads anything else
 * (another schema of the same PostgreSQL database, which the connection's user may well read) is
 * refused on the database's own plan before it runs. The model is a scripted OpenAI-compatible
 * server on loopback that writes whichever statement the question asks for; the database is the
 * real PostgreSQL, reached through the real db-proxy, in a database of this file's own (test
 * files run in parallel: the listing must not see the tables other files create).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { RunningServer } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import pg from 'pg';
import { readEvents } from './support/event-stream';
import { DB_PROXY_TOKEN, startDbProxy } from './support/proxies';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

const { POSTGRES_URL } = requireEnv('POSTGRES_URL');
const suffix = randomBytes(3).toString('hex');
const DATABASE = `text_to_sql_${suffix}`;
const HIDDEN = `hidden_${suffix}`;
const LISTED = `listed_${suffix}`;

/** Plans with the statement the question names after `SQL:`, answers every chat with "ok". */
async function startScriptedModel() {
  const answered: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted' }] }));
      }
      const body = JSON.parse(text) as { stream?: boolean; messages: Array<{ content: string }> };
      const prompt = body.messages.map((m) => m.content).join('\n');
      if (body.stream) {
        answered.push(prompt);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({
            id: 'c',
            object: 'chat.completion.chunk',
            created: 0,
            model: 'scripted',
            choices: [{ index: 0, delta, finish_reason: finish }],
          })}\n\n`;
        return res.end(`${chunk({ content: 'ok' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
      }
      const sql = /SQL: (.*)$/m.exec(prompt)?.[1] ?? 'SELECT 1';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: 'scripted',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: JSON.stringify({ sql }) },
              finish_reason: 'stop',
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, answered };
}

describe('text-to-SQL reads only the listed tables', () => {
  let stack: CoreStack;
  let dbProxy: RunningServer;
  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  let owner: TestUser;
  let workspaceId: string;
  let roomId: string;
  const postgres = new URL(POSTGRES_URL);
  postgres.pathname = `/${DATABASE}`;

  const admin = async (
    work: (client: pg.Client) => Promise<unknown>,
    connectionString = postgres.toString(),
  ) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin((client) => client.query(`create database ${DATABASE}`), POSTGRES_URL);
    await admin(async (client) => {
      await client.query(`create schema ${HIDDEN}`);
      await client.query(`create table ${HIDDEN}.salaries (amount text)`);
      await client.query(`insert into ${HIDDEN}.salaries values ('SECRET-4711')`);
      await client.query(`create table public.${LISTED} (item text)`);
      await client.query(`insert into public.${LISTED} values ('VISIBLE-42')`);
    });
    dbProxy = await startDbProxy();
    model = await startScriptedModel();
    stack = await startCoreStack({
      URL_DB_PROXY: dbProxy.url,
      DB_PROXY_TOKEN,
      DATABASE_CONNECT_TIMEOUT: '10000',
      ALLOWED_TARGETS: '127.0.0.1',
    });
    owner = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'Scope' }),
        201,
      )
    ).id;
    await expectJson(
      call('POST', '/models', { name: 'Scripted', model: 'scripted', base_url: model.url }),
      201,
    );
    const database = await expectJson<{ id: string }>(
      call('POST', '/databases', {
        name: 'Warehouse',
        engine: 'postgresql',
        host: postgres.hostname,
        port: Number(postgres.port || 5432),
        database_name: postgres.pathname.slice(1),
        username: decodeURIComponent(postgres.username),
        password: decodeURIComponent(postgres.password),
      }),
      201,
    );
    roomId = (
      await expectJson<{ id: string }>(
        call('POST', '/rooms', {
          knowledge_sources: [{ type: 'database', topic_id: [database.id] }],
        }),
        201,
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await dbProxy?.stop();
    model?.server.close();
    await admin(
      (client) => client.query(`drop database if exists ${DATABASE} with (force)`),
      POSTGRES_URL,
    );
  });

  function call(method: string, path: string, body?: unknown) {
    return stack.call(method, `/api/workspaces/${workspaceId}${path}`, owner.token, body);
  }
  const ask = async (chat: string) => {
    const events = await readEvents(await call('POST', `/rooms/${roomId}/messages`, { chat }));
    expect(events.at(-1)!.event).toBe('done');
    return model.answered.at(-1)!;
  };

  it('answers from a listed table', async () => {
    const prompt = await ask(`What is there?\nSQL: SELECT item FROM ${LISTED}`);
    expect(prompt).toContain('VISIBLE-42');
  });

  it('refuses a statement that reads a table it was not shown, before it runs', async () => {
    for (const sql of [
      `SELECT amount FROM ${HIDDEN}.salaries`,
      `WITH s AS (SELECT amount FROM ${HIDDEN}.salaries) SELECT * FROM s`,
      `SELECT item FROM ${LISTED} WHERE EXISTS (SELECT 1 FROM ${HIDDEN}.salaries)`,
      'SELECT rolname FROM pg_catalog.pg_roles',
    ]) {
      const prompt = await ask(`Show me everything.\nSQL: ${sql}`);
      expect(prompt).not.toContain('SECRET-4711');
      expect(prompt).toContain("not among the database's listed tables");
    }
  });
});
