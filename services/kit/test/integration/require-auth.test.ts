/**
 * requireAuth against the real Redis and OPA of `make testenv`: tokens signed as the user
 * service signs them, sessions in Redis, decisions from a policy loaded into OPA for this test.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { requireEnv } from '@pelita/testenv';
import { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import {
  ACCESS_TOKEN_ALGORITHM,
  ACCESS_TOKEN_ISSUER,
  createLogger,
  createMetrics,
  createService,
  defineRoute,
  opaDecision,
  requireAuth,
  serve,
  sessionKey,
  type RunningServer,
} from '../../src';

const { REDIS_URL, OPA_URL } = requireEnv('REDIS_URL', 'OPA_URL');

const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const otherKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const policyPackage = `kit_test_${randomUUID().replaceAll('-', '')}`;

// Ann may read reports; nobody may delete them.
const POLICY = `package ${policyPackage}.authz
default allow := false
allow if {
  input.user == "ann"
  input.method == "GET"
  startswith(input.path, "/reports")
}`;

function sign(
  claims: Record<string, unknown>,
  options: jwt.SignOptions = {},
  key = keys.privateKey,
) {
  return jwt.sign(claims, key, {
    algorithm: ACCESS_TOKEN_ALGORITHM,
    issuer: ACCESS_TOKEN_ISSUER,
    expiresIn: 300,
    ...options,
  });
}

describe('requireAuth', () => {
  const redis = new Redis(REDIS_URL);
  const metrics = createMetrics();
  const silent = new Writable({ write: (_c, _e, done) => done() });
  let running: RunningServer;
  let broken: RunningServer;

  async function startApp(opaUrl: string) {
    const logger = createLogger({ name: 'auth-test', destination: silent });
    const app = createService({
      name: 'auth-test',
      logger,
      metrics,
      guard: requireAuth({
        publicKey: keys.publicKey,
        sessions: redis,
        decide: opaDecision({ url: opaUrl, rule: `${policyPackage}/authz/allow`, timeoutMs: 500 }),
        registry: metrics.registry,
      }),
      routes: [
        defineRoute({
          method: 'get',
          path: '/reports/:id',
          summary: 'A report',
          request: { params: z.object({ id: z.string().regex(/^\d+$/) }) },
          responses: { 200: { description: 'The report' } },
          handler: ({ params }, req) => ({ id: params.id, readBy: req.auth?.username }),
        }),
        defineRoute({
          method: 'delete',
          path: '/reports/:id',
          summary: 'Delete a report',
          responses: { 204: { description: 'Deleted' } },
          handler: (_input, _req, res) => void res.status(204).end(),
        }),
        defineRoute({
          method: 'get',
          path: '/status',
          summary: 'Open to all',
          public: true,
          responses: { 200: { description: 'Status' } },
          handler: () => ({ open: true }),
        }),
      ],
    });
    return serve(app, {
      port: 0,
      host: '127.0.0.1',
      logger,
      shutdownTimeoutMs: 1000,
      handleSignals: false,
    });
  }

  async function session(username = 'ann'): Promise<string> {
    const jti = randomUUID();
    await redis.set(sessionKey(jti), 'user-1', 'EX', 300);
    return sign({ sub: 'user-1', username, jti });
  }

  beforeAll(async () => {
    const put = await fetch(`${OPA_URL}/v1/policies/${policyPackage}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: POLICY,
    });
    if (!put.ok)
      throw new Error(`loading the test policy failed: ${put.status} ${await put.text()}`);
    running = await startApp(OPA_URL);
    broken = await startApp('http://127.0.0.1:1');
  });
  afterAll(async () => {
    await running?.stop();
    await broken?.stop();
    await fetch(`${OPA_URL}/v1/policies/${policyPackage}`, { method: 'DELETE' });
    redis.disconnect();
  });

  const get = (path: string, token?: string, base = running.url) =>
    fetch(`${base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('lets a live session through when OPA allows, with the claims on the request', async () => {
    const res = await get('/reports/7', await session());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: '7', readBy: 'ann' });
  });

  it('answers 403 when OPA denies', async () => {
    const token = await session();
    const res = await fetch(`${running.url}/reports/7`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect((await get('/reports/7', await session('bob'))).status).toBe(403);
  });

  it.each([
    ['no token', undefined],
    ['a malformed token', 'not-a-jwt'],
    [
      'a token signed with another key',
      sign({ sub: 'u', username: 'ann', jti: 'x' }, {}, otherKeys.privateKey),
    ],
    ['an expired token', sign({ sub: 'u', username: 'ann', jti: 'x' }, { expiresIn: -10 })],
    [
      'a token from another issuer',
      sign({ sub: 'u', username: 'ann', jti: 'x' }, { issuer: 'someone-else' }),
    ],
    ['a token without username', sign({ sub: 'u', jti: 'x' })],
  ])('answers 401 for %s', async (_case, token) => {
    const res = await get('/reports/7', token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('answers 401 once the session is gone from Redis (logout, password reset)', async () => {
    const jti = randomUUID();
    await redis.set(sessionKey(jti), 'user-1', 'EX', 300);
    const token = sign({ sub: 'user-1', username: 'ann', jti });
    expect((await get('/reports/1', token)).status).toBe(200);
    await redis.del(sessionKey(jti));
    expect((await get('/reports/1', token)).status).toBe(401);
  });

  it('fails closed with 503 when OPA does not answer', async () => {
    const res = await get('/reports/7', await session(), broken.url);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'authorization_unavailable',
    );
  });

  it('leaves public routes and the operational endpoints open', async () => {
    expect((await get('/status')).status).toBe(200);
    expect((await get('/health')).status).toBe(200);
    expect((await get('/metrics')).status).toBe(200);
  });

  it('documents the guard and measures decisions', async () => {
    const doc = (await (await get('/api-docs.json')).json()) as Record<string, any>;
    expect(doc.components.securitySchemes.bearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(doc.paths['/reports/{id}'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(doc.paths['/reports/{id}'].get.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403']),
    );
    expect(doc.paths['/status'].get.security).toBeUndefined();
    const text = await (await get('/metrics')).text();
    expect(text).toMatch(/authz_decision_duration_seconds_count\{outcome="allowed"\} [1-9]/);
    expect(text).toMatch(/authz_decision_duration_seconds_count\{outcome="denied"\} [1-9]/);
    expect(text).toMatch(
      /authz_decision_duration_seconds_count\{outcome="unauthenticated"\} [1-9]/,
    );
  });
});
