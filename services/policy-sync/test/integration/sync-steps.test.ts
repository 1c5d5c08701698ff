/**
 * The seed's five sync steps against a real OPA: fetch from the user service, read the shared
 * file, merge by top-level keys, rewrite the file, send the whole file to OPA; the 403 when the
 * user service answers another status; start-up from an existing file.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOpa, POLICIES_DIR, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const chatGrant = grant(1, 'GET', '/api/v1/chat/*');
const userGrant = grant(2, 'POST', '/api/v1/users');

describe('the sync steps', () => {
  let users: UserServiceFixture;
  let opa: OpaProcess;
  let sync: PolicySyncUnderTest;

  beforeAll(async () => {
    users = await startUserService({
      userRoles: { ann: ['chat-user'], bob: ['admin'] },
      roleGrants: { 'chat-user': [chatGrant], admin: [userGrant] },
    });
    opa = await startOpa([POLICIES_DIR]);
    sync = await startPolicySync({ URL_USER: users.url, URL_OPA: opa.url });
  });
  afterAll(async () => {
    await sync.stop();
    await opa.stop();
    await users.close();
  });
  beforeEach(() => {
    users.failures.clear();
    users.bodies.clear();
  });

  /** OPA's data without the revision marker: what must equal the file. */
  async function opaDocument() {
    const { pelita_policy_sync: marker, ...document } = await opa.data();
    return { document, marker };
  }

  it('runs a full sync at start: the file and OPA hold both mappings', async () => {
    const expected = {
      user_roles: { ann: ['chat-user'], bob: ['admin'] },
      role_grants: { 'chat-user': [chatGrant], admin: [userGrant] },
    };
    expect(await sync.fileDocument()).toEqual(expected);
    const { document, marker } = await opaDocument();
    expect(document).toEqual(expected);
    expect(marker).toEqual({ revision: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('GET /role-users replaces user_roles only, keeps every other key, and pushes the whole file', async () => {
    // Another top-level key, and grants that changed at the user service since the last sync.
    const before = (await sync.fileDocument()) ?? {};
    await writeFile(sync.dataFile, JSON.stringify({ ...before, extra: { kept: true } }));
    users.userRoles = { ann: ['chat-user', 'admin'], cid: ['chat-user'] };
    users.roleGrants = { 'chat-user': [] };

    const res = await sync.get('/role-users');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { info: string; revision: string; count: number };
    expect(body).toEqual({
      info: 'user_roles synced',
      revision: expect.any(String),
      count: 2,
      // A single replica without Redis: itself.
      replicas: { expected: 1, confirmed: 1 },
    });

    const file = await sync.fileDocument();
    expect(file).toEqual({
      user_roles: { ann: ['chat-user', 'admin'], cid: ['chat-user'] },
      role_grants: before.role_grants,
      extra: { kept: true },
    });
    const { document, marker } = await opaDocument();
    expect(document).toEqual(file);
    expect(marker).toEqual({ revision: body.revision });
  });

  it('GET /role-grants replaces role_grants with the grant records exactly as they came', async () => {
    const withExtraField = { ...userGrant, description: 'kept as it came' };
    users.roleGrants = { admin: [withExtraField], viewer: [grant(3, 'get', '/api/**', false)] };

    const res = await sync.get('/role-grants');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { revision: string; count: number };
    expect(body.count).toBe(2);

    const file = await sync.fileDocument();
    expect(file?.role_grants).toEqual(users.roleGrants);
    expect(file?.user_roles).toEqual(users.userRoles);
    expect(body.revision).toBe(sha256(await readFile(sync.dataFile, 'utf8')));
    expect((await opaDocument()).document).toEqual(file);
  });

  it('answers 403 naming what the user service answered, and changes nothing', async () => {
    const before = await sync.fileDocument();
    users.userRoles = { someone: ['else'] };
    users.failures.set('/open-api/role-users', 503);

    const res = await sync.get('/role-users');
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      info: 'user service answered 503 for /open-api/role-users',
    });
    expect(await sync.fileDocument()).toEqual(before);
    expect((await opaDocument()).document).toEqual(before);

    users.failures.set('/open-api/role-grants', 404);
    const grants = await sync.get('/role-grants');
    expect(grants.status).toBe(403);
    expect(await grants.json()).toEqual({
      info: 'user service answered 404 for /open-api/role-grants',
    });
  });

  it('answers 500 Internal Server Error when the answer is outside the contract', async () => {
    users.bodies.set('/open-api/role-grants', JSON.stringify({ policies: [{ id: 1 }] }));
    const res = await sync.get('/role-grants');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ info: 'Internal Server Error' });
    expect(sync.logs.some((line) => line.includes('outside the contract'))).toBe(true);

    users.bodies.set('/open-api/role-users', 'not json');
    expect((await sync.get('/role-users')).status).toBe(500);
  });

  it('rebuilds a corrupt file with both mappings', async () => {
    await writeFile(sync.dataFile, '{"user_roles": ');
    const res = await sync.get('/role-users');
    expect(res.status).toBe(200);
    expect(await sync.fileDocument()).toEqual({
      user_roles: users.userRoles,
      role_grants: users.roleGrants,
    });
    expect(sync.logs.some((line) => line.includes('policy data file is corrupt'))).toBe(true);
  });

  it('answers /health with the seed shape, and /ready checks OPA', async () => {
    expect(await (await sync.get('/health')).json()).toEqual({ status: 'UP' });
    const ready = await sync.get('/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { opa: { status: 'up' } } });
  });

  it('answers unknown paths with a { info } 404', async () => {
    const res = await sync.get('/role-nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ info: 'No route for GET /role-nothing' });
  });
});

describe('start-up', () => {
  it('pushes an existing file to an empty OPA, even when the user service is down', async () => {
    const users = await startUserService({ userRoles: {}, roleGrants: {} });
    users.failures.set('/open-api/role-users', 503);
    users.failures.set('/open-api/role-grants', 503);
    const opa = await startOpa([POLICIES_DIR]);
    const dataFile = join(mkdtempSync(join(tmpdir(), 'policy-sync-')), 'data.json');
    const stored = {
      user_roles: { ann: ['chat-user'] },
      role_grants: { 'chat-user': [chatGrant] },
    };
    await writeFile(dataFile, JSON.stringify(stored));
    const sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: opa.url,
      POLICY_DATA_FILE: dataFile,
    });
    try {
      const { pelita_policy_sync: _marker, ...document } = await opa.data();
      expect(document).toEqual(stored);
      expect(await opa.allows({ user: 'ann', method: 'GET', path: '/api/v1/chat/7' })).toBe(true);
      // The failed full sync left the file as it was.
      expect(await sync.fileDocument()).toEqual(stored);
      expect(await sync.metrics()).toMatch(
        /policy_sync_opa_pushes_total\{reason="restore",outcome="success"\} 1/,
      );
    } finally {
      await sync.stop();
      await opa.stop();
      await users.close();
    }
  });
});
