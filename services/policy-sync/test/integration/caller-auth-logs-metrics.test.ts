/**
 * SYNC_SERVICE_TOKEN on the sync endpoints, USER_SERVICE_TOKEN towards the user service, the
 * metrics, and the logs: none of the secrets a session of calls carried is in any log line.
 */
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const SYNC_TOKEN = 'sync-tok-5e1f0a';
const USER_SERVICE_TOKEN = 'user-svc-tok-91c2';

describe('with SYNC_SERVICE_TOKEN and USER_SERVICE_TOKEN', () => {
  let users: UserServiceFixture;
  let opa: OpaProcess;
  let sync: PolicySyncUnderTest;

  beforeAll(async () => {
    users = await startUserService({
      userRoles: { ann: ['chat-user'] },
      roleGrants: { 'chat-user': [grant(1, 'GET', '/api/v1/chat/*')] },
    });
    opa = await startOpa([POLICIES_DIR]);
    sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: opa.url,
      SYNC_SERVICE_TOKEN: SYNC_TOKEN,
      USER_SERVICE_TOKEN,
    });
  });
  afterAll(async () => {
    await sync.stop();
    await opa.stop();
    await users.close();
  });

  it.each([
    ['no Authorization', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['the token in another scheme', { authorization: `Basic ${SYNC_TOKEN}` }],
  ])('answers 401 { info } to a caller with %s, and syncs nothing', async (_case, headers) => {
    const before = users.requests.length;
    const res = await sync.get('/role-users', headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({
      info: 'This endpoint requires Authorization: Bearer <service token>',
    });
    expect(users.requests.length).toBe(before);
  });

  it('syncs for a caller with the token, and sends USER_SERVICE_TOKEN to the user service', async () => {
    const res = await sync.get('/role-grants', { authorization: `Bearer ${SYNC_TOKEN}` });
    expect(res.status).toBe(200);
    const last = users.requests.at(-1);
    expect(last?.path).toBe('/open-api/role-grants');
    expect(last?.headers.authorization).toBe(`Bearer ${USER_SERVICE_TOKEN}`);
  });

  it('leaves /health, /ready and /metrics open', async () => {
    for (const path of ['/health', '/ready', '/metrics']) {
      expect((await sync.get(path)).status).toBe(200);
    }
  });

  it('counts syncs by kind and outcome, their duration, the last success and OPA pushes', async () => {
    users.failures.set('/open-api/role-users', 502);
    await sync.get('/role-users', { authorization: `Bearer ${SYNC_TOKEN}` });
    users.failures.clear();
    const text = await sync.metrics();
    expect(text).toMatch(/policy_sync_syncs_total\{kind="role_grants",outcome="success"\} [1-9]/);
    expect(text).toMatch(/policy_sync_syncs_total\{kind="user_roles",outcome="rejected"\} 1/);
    expect(text).toMatch(/policy_sync_syncs_total\{kind="verify",outcome="success"\} 1/);
    expect(text).toMatch(/policy_sync_duration_seconds_count\{outcome="success"\} [1-9]/);
    expect(text).toMatch(/policy_sync_duration_seconds_count\{outcome="rejected"\} 1/);
    expect(text).toMatch(/policy_sync_last_success_timestamp_seconds\{kind="role_grants"\} 1\d{9}/);
    expect(text).toMatch(/policy_sync_opa_pushes_total\{reason="sync",outcome="success"\} [1-9]/);
    expect(text).toMatch(/policy_sync_triggers_total\{trigger="request"\} [1-9]/);
    expect(text).toMatch(/policy_sync_triggers_total\{trigger="startup"\} 2/);
    expect(text).toMatch(
      /http_server_request_duration_seconds_count\{method="GET",route="\/role-users",status_code="401"\} 3/,
    );
  });

  it('keeps both tokens out of every log line', () => {
    expect(sync.logs.length).toBeGreaterThan(5);
    const leaking = sync.logs.filter(
      (line) => line.includes(SYNC_TOKEN) || line.includes(USER_SERVICE_TOKEN),
    );
    expect(leaking).toEqual([]);
    // The authenticated calls were logged (the access log records no headers at all).
    expect(sync.logs.some((line) => line.includes('"url":"/role-users"'))).toBe(true);
  });
});
