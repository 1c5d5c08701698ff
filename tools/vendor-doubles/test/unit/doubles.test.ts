/**
 * The doubles speak the wire protocols the license service relies on — checked here with the
 * kit's own Infisical client and plain fetch — record what they received, and fail on request.
 */
import { createInfisicalClient, SecretStoreError } from '@pelita/kit';
import {
  startGitlabDouble,
  startInfisicalDouble,
  startTelegramDouble,
  type GitlabDouble,
  type InfisicalDouble,
  type TelegramDouble,
} from '../../src';

const scope = { projectId: 'p1', environment: 'dev', secretPath: '/app' };

describe('Infisical double with the kit client', () => {
  let infisical: InfisicalDouble;
  beforeAll(async () => {
    infisical = await startInfisicalDouble();
    infisical.addIdentity('id-1', 'secret-1');
    infisical.setSecret(scope, 'A', 'one');
    infisical.setSecret(scope, 'B', 'two');
    infisical.setSecret({ ...scope, environment: 'prod' }, 'A', 'prod-one');
  });
  afterAll(() => infisical?.close());

  const client = (secret = 'secret-1') =>
    createInfisicalClient({ baseUrl: infisical.url, clientId: 'id-1', clientSecret: secret });

  it('logs in once with universal auth, then lists, reads and updates by scope', async () => {
    const store = client();
    expect(await store.listSecrets(scope)).toEqual([
      { key: 'A', value: 'one', version: 1 },
      { key: 'B', value: 'two', version: 1 },
    ]);
    expect(await store.getSecret({ ...scope, environment: 'prod' }, 'A')).toMatchObject({
      value: 'prod-one',
    });
    await store.updateSecret(scope, 'B', 'three');
    expect(infisical.secretValue(scope, 'B')).toBe('three');
    const logins = infisical.requests.filter((r) => r.path === '/api/v1/auth/universal-auth/login');
    expect(logins).toHaveLength(1);
    expect(logins[0]!.body).toEqual({ clientId: 'id-1', clientSecret: 'secret-1' });
    const patch = infisical.requests.find((r) => r.method === 'PATCH')!;
    expect(patch.body).toEqual({
      projectId: 'p1',
      environment: 'dev',
      secretPath: '/app',
      secretValue: 'three',
    });
  });

  it('renews its token shortly before Infisical says it expires', async () => {
    let now = 1_000_000;
    const short = await startInfisicalDouble({ tokenTtlSeconds: 60 });
    try {
      short.addIdentity('id-1', 'secret-1');
      const store = createInfisicalClient({
        baseUrl: short.url,
        clientId: 'id-1',
        clientSecret: 'secret-1',
        now: () => now,
      });
      const logins = () => short.requests.filter((r) => r.path.endsWith('/login')).length;
      await store.listSecrets(scope);
      now += 29_000;
      await store.listSecrets(scope);
      expect(logins()).toBe(1);
      now += 2_000; // 31 s after the login: within 30 s of its 60 s lifetime
      await store.listSecrets(scope);
      expect(logins()).toBe(2);
    } finally {
      await short.close();
    }
  });

  it('logs in again when its token is revoked', async () => {
    const store = client();
    await store.listSecrets(scope);
    infisical.revokeTokens();
    expect(await store.listSecrets(scope)).toHaveLength(2);
  });

  it('fails with the status and no credential in the message', async () => {
    const wrong = client('not-the-secret');
    await expect(wrong.listSecrets(scope)).rejects.toMatchObject({
      name: 'SecretStoreError',
      status: 401,
    });
    infisical.failNext(503, 1, '/api/v4/secrets');
    const err = await client()
      .listSecrets(scope)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretStoreError);
    expect((err as SecretStoreError).status).toBe(503);
    expect((err as Error).message).not.toContain('secret-1');
    await expect(client().updateSecret(scope, 'MISSING', 'x')).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe('GitLab double', () => {
  let gitlab: GitlabDouble;
  beforeAll(async () => {
    gitlab = await startGitlabDouble({ privateToken: 'glpat-1' });
  });
  afterAll(() => gitlab?.close());

  it('creates trigger tokens with a private token and runs pipelines with them', async () => {
    const refused = await fetch(`${gitlab.url}/api/v4/projects/7/triggers`, { method: 'POST' });
    expect(refused.status).toBe(401);
    const created = await fetch(`${gitlab.url}/api/v4/projects/7/triggers`, {
      method: 'POST',
      headers: { 'private-token': 'glpat-1', 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'd' }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const run = await fetch(`${gitlab.url}/api/v4/projects/7/trigger/pipeline`, {
      method: 'POST',
      body: new URLSearchParams({ token, ref: 'main' }),
    });
    expect(run.status).toBe(201);
    expect(await run.json()).toMatchObject({ ref: 'main', status: 'created' });
    const unknown = await fetch(`${gitlab.url}/api/v4/projects/7/trigger/pipeline`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'nope', ref: 'main' }),
    });
    expect(unknown.status).toBe(404);
    expect(gitlab.pipelines).toEqual([
      { id: expect.any(Number), projectId: '7', ref: 'main', token },
    ]);
  });
});

describe('Telegram double', () => {
  let telegram: TelegramDouble;
  beforeAll(async () => {
    telegram = await startTelegramDouble({ botToken: '1:abc' });
  });
  afterAll(() => telegram?.close());

  it('accepts sendMessage for its bot, refuses other tokens and empty texts, fails on request', async () => {
    const send = (bot: string, body: unknown) =>
      fetch(`${telegram.url}/bot${bot}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await send('1:abc', { chat_id: 5, text: 'hi' })).status).toBe(200);
    expect((await send('2:xyz', { chat_id: 5, text: 'hi' })).status).toBe(401);
    expect((await send('1:abc', { chat_id: 5, text: '' })).status).toBe(400);
    telegram.failNext(500);
    expect((await send('1:abc', { chat_id: 5, text: 'again' })).status).toBe(500);
    expect(telegram.messages).toEqual([{ chatId: '5', text: 'hi' }]);
  });
});
