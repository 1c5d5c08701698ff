/**
 * A workspace's own model server is reached under the target policy: an IP literal of a denied
 * range is refused before any connection, and a redirect is never followed (it would reach an
 * address nobody checked). Real HTTP servers on loopback: 127.0.0.1 is allowed, 127.0.0.2 is not.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTargetPolicy, parseAllowedTargets } from '@pelita/kit';
import { createModelClient, type ModelChoice } from '../../src/chats/model-client';

interface Listening {
  server: Server;
  url: string;
  hits: string[];
}

async function listen(
  host: string,
  answer: (req: { url?: string }, res: ServerResponse) => void,
): Promise<Listening> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    req.resume();
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}`, hits };
}

const models = (_req: unknown, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data: [{ id: 'inside', object: 'model' }] }));
};

describe('a guarded model server', () => {
  let denied: Listening;
  let redirecting: Listening;
  const client = createModelClient({
    timeoutMs: 5000,
    maxRetries: 0,
    targetPolicy: createTargetPolicy(parseAllowedTargets(['127.0.0.1'])),
  });

  beforeAll(async () => {
    denied = await listen('127.0.0.2', models);
    redirecting = await listen('127.0.0.1', (req, res) => {
      res.writeHead(302, { location: `${denied.url}${req.url ?? '/'}` });
      res.end();
    });
  });
  afterAll(() => {
    for (const { server } of [denied, redirecting]) {
      server.close();
      server.closeAllConnections();
    }
  });
  beforeEach(() => {
    denied.hits.length = 0;
    redirecting.hits.length = 0;
  });

  const choice = (baseUrl: string): ModelChoice => ({
    model: 'inside',
    baseUrl,
    apiKey: 'sk-workspace',
    guarded: true,
  });

  it('is refused at an IP literal of a denied range, before any connection', async () => {
    await expect(client.listModels(choice(`${denied.url}/v1`))).rejects.toMatchObject({
      status: 403,
      code: 'target_forbidden',
    });
    expect(denied.hits).toEqual([]);
  });

  it('never follows a redirect to a denied address (listing models)', async () => {
    await expect(client.listModels(choice(`${redirecting.url}/v1`))).rejects.toMatchObject({
      status: 502,
    });
    expect(redirecting.hits).toEqual(['GET /v1/models Bearer sk-workspace']);
    expect(denied.hits).toEqual([]);
  });

  it('never follows a redirect to a denied address (answering)', async () => {
    await expect(
      client.stream(choice(`${redirecting.url}/v1`), [{ role: 'user', content: 'hi' }], {
        temperature: 0,
      }),
    ).rejects.toMatchObject({ status: 502 });
    expect(redirecting.hits).toHaveLength(1);
    expect(denied.hits).toEqual([]);
  });
});

describe("a model's context length", () => {
  it('is asked once, and asked again a while after the model list failed', async () => {
    let failing = true;
    const server = await listen('127.0.0.1', (_req, res) => {
      if (failing) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"busy"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'inside', object: 'model', max_model_len: 2048 }] }));
    });
    try {
      const client = createModelClient({
        timeoutMs: 5000,
        maxRetries: 0,
        targetPolicy: createTargetPolicy(parseAllowedTargets(['127.0.0.1'])),
        listRetryMs: 50,
      });
      const choice: ModelChoice = {
        model: 'inside',
        baseUrl: `${server.url}/v1`,
        apiKey: undefined,
      };
      await expect(client.contextLength(choice)).resolves.toBeUndefined();
      failing = false;
      await expect(client.contextLength(choice)).resolves.toBeUndefined(); // remembered for now
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(client.contextLength(choice)).resolves.toBe(2048);
      await expect(client.contextLength(choice)).resolves.toBe(2048);
      expect(server.hits).toHaveLength(2);
    } finally {
      server.server.close();
      server.server.closeAllConnections();
    }
  });
});
