/**
 * The policy-sync trigger against a recording HTTP server standing in for policy-sync: retried
 * until it answers, never failing the user's request, with the service token; and the
 * OPEN_API_TOKEN check of the two open-api endpoints.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createMetrics } from '@pelita/kit';
import { createSyncTrigger } from '../../src/policy-sync/sync-trigger';
import { startPlatform, type Platform } from './support/platform';

interface Recorded {
  path: string;
  authorization: string | undefined;
}

async function recordingServer(failFirst: number) {
  const calls: Recorded[] = [];
  let failures = 0;
  const server: Server = createServer((req, res) => {
    calls.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (failures++ < failFirst) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"info":"synced"}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { calls, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the policy-sync trigger', () => {
  const logger = createLogger({ name: 'trigger-test', level: 'silent' });

  it('retries until policy-sync answers 200, sending the service token', async () => {
    const recorder = await recordingServer(2);
    const metrics = createMetrics();
    const trigger = createSyncTrigger({
      baseUrl: recorder.url,
      token: 'sync-token-1',
      logger,
      registry: metrics.registry,
      retryDelayMs: 10,
    });
    trigger.trigger('role-grants');
    await trigger.idle();
    expect(recorder.calls).toEqual([
      { path: '/role-grants', authorization: 'Bearer sync-token-1' },
      { path: '/role-grants', authorization: 'Bearer sync-token-1' },
      { path: '/role-grants', authorization: 'Bearer sync-token-1' },
    ]);
    expect(await metrics.registry.metrics()).toMatch(
      /user_service_policy_sync_triggers_total\{target="role-grants",outcome="success"\} 1/,
    );
    await recorder.close();
  });

  it('gives up after its attempts and counts the failure', async () => {
    const metrics = createMetrics();
    const trigger = createSyncTrigger({
      baseUrl: 'http://127.0.0.1:1',
      logger,
      registry: metrics.registry,
      attempts: 2,
      retryDelayMs: 10,
    });
    trigger.trigger('role-users', 'role-users');
    await trigger.idle();
    expect(await metrics.registry.metrics()).toMatch(
      /user_service_policy_sync_triggers_total\{target="role-users",outcome="failure"\} [1-9]/,
    );
  });
});

describe('a change while policy-sync is down', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({
      REGISTRATION_ENABLED: 'true',
      POLICY_SYNC_URL: 'http://127.0.0.1:1',
      OPEN_API_TOKEN: 'open-api-token-4',
    });
  });
  afterAll(() => platform?.stop());

  it('still succeeds for the user; the failed trigger is counted', async () => {
    const failures = () =>
      platform.metric('user_service_policy_sync_triggers_total', {
        target: 'role-users',
        outcome: 'failure',
      });
    // The first admin's start-up trigger fails too: count from after it.
    await platform.service.syncTrigger.idle();
    const before = await failures();
    const res = await platform.request('POST', '/auth/register', {
      body: {
        email: 'down@pelita.test',
        username: 'down-user',
        full_name: 'Down',
        password: 'down-pw-123',
      },
    });
    expect(res.status).toBe(201);
    await platform.service.syncTrigger.idle();
    expect((await failures()) - before).toBe(1);
  });

  it('requires OPEN_API_TOKEN on the open-api endpoints when it is set', async () => {
    expect((await platform.request('GET', '/open-api/role-users')).status).toBe(401);
    const wrong = await platform.request('GET', '/open-api/role-grants', {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    const right = await platform.request('GET', '/open-api/role-users', {
      headers: { authorization: 'Bearer open-api-token-4' },
    });
    expect(right.status).toBe(200);
    expect(((await right.json()) as any).user_roles['down-user']).toEqual(['user']);
    // The kit's check: the scheme is case-insensitive (RFC 9110), a longer token is no match.
    const lowercase = await platform.request('GET', '/open-api/role-users', {
      headers: { authorization: 'bearer open-api-token-4' },
    });
    expect(lowercase.status).toBe(200);
    const longer = await platform.request('GET', '/open-api/role-users', {
      headers: { authorization: 'Bearer open-api-token-40' },
    });
    expect(longer.status).toBe(401);
  });
});
