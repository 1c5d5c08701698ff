/**
 * The 500 of the seed: the user service or OPA unreachable. The caller gets the seed's fixed
 * body, the log says what happened, and nothing half-done reaches OPA.
 */
import { freePort, POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';
import { waitFor } from '@pelita/testenv';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

describe('unreachable dependencies', () => {
  let users: UserServiceFixture;
  let opa: OpaProcess;

  beforeAll(async () => {
    users = await startUserService({
      userRoles: { ann: ['chat-user'] },
      roleGrants: { 'chat-user': [grant(1, 'GET', '/api/v1/chat/*')] },
    });
    opa = await startOpa([POLICIES_DIR]);
  });
  afterAll(async () => {
    await opa.stop();
    await users.close();
  });

  it('answers 500 Internal Server Error when the user service is unreachable', async () => {
    const closedPort = await freePort();
    const sync = await startPolicySync({
      URL_USER: `http://127.0.0.1:${closedPort}`,
      URL_OPA: opa.url,
    });
    try {
      for (const path of ['/role-users', '/role-grants']) {
        const res = await sync.get(path);
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual({ info: 'Internal Server Error' });
      }
      const failure = sync.logs.find((line) => line.includes('user service unreachable'));
      expect(failure).toMatch(/ECONNREFUSED/);
      expect(await sync.fileDocument()).toBeUndefined();
    } finally {
      await sync.stop();
    }
  });

  it('answers 500 when the user service does not answer within USER_SERVICE_TIMEOUT_MS', async () => {
    const sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: opa.url,
      USER_SERVICE_TIMEOUT_MS: '200',
    });
    users.delayMs = 1000;
    try {
      const res = await sync.get('/role-users');
      expect(res.status).toBe(500);
      expect(sync.logs.some((line) => /unreachable.*(timeout|aborted)/i.test(line))).toBe(true);
    } finally {
      users.delayMs = 0;
      await sync.stop();
    }
  });

  it('answers 500 when OPA is unreachable; the file is written and reaches OPA once it is back', async () => {
    const opaPort = await freePort();
    const sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: `http://127.0.0.1:${opaPort}`,
      OPA_PROBE_INTERVAL_MS: '100',
    });
    let lateOpa: OpaProcess | undefined;
    try {
      const res = await sync.get('/role-users');
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ info: 'Internal Server Error' });
      expect(sync.logs.some((line) => line.includes('OPA unreachable for PUT /v1/data'))).toBe(
        true,
      );
      // Steps 1-4 happened: the file holds the data; step 5 is retried by the OPA watch.
      expect((await sync.fileDocument())?.user_roles).toEqual(users.userRoles);
      const ready = await sync.get('/ready');
      expect(ready.status).toBe(503);

      lateOpa = await startOpa([POLICIES_DIR], opaPort);
      await waitFor(
        async () => lateOpa !== undefined && (await lateOpa.data()).user_roles !== undefined,
        { what: 'the file to reach the late OPA' },
      );
      expect(await lateOpa.allows({ user: 'ann', method: 'GET', path: '/api/v1/chat/1' })).toBe(
        true,
      );
    } finally {
      await sync.stop();
      await lateOpa?.stop();
    }
  });
});
