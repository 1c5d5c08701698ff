/**
 * End to end through OPA: decisions of `POST /v1/data/pelita/authz/allow` with input
 * `{user, method, path}` follow the user service's grants as they change and are synced.
 */
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

describe('decisions as grants change', () => {
  let users: UserServiceFixture;
  let opa: OpaProcess;
  let sync: PolicySyncUnderTest;

  beforeAll(async () => {
    users = await startUserService({ userRoles: { ann: ['chat-user'] }, roleGrants: {} });
    opa = await startOpa([POLICIES_DIR]);
    sync = await startPolicySync({ URL_USER: users.url, URL_OPA: opa.url });
  });
  afterAll(async () => {
    await sync.stop();
    await opa.stop();
    await users.close();
  });

  const readChat = { user: 'ann', method: 'GET', path: '/api/v1/chat/123' };
  const readMessages = { user: 'ann', method: 'GET', path: '/api/v1/chat/123/messages' };
  const postChat = { user: 'ann', method: 'POST', path: '/api/v1/chat/123' };
  async function syncGrants() {
    expect((await sync.get('/role-grants')).status).toBe(200);
  }

  it('denies before any grant', async () => {
    expect(await opa.allows(readChat)).toBe(false);
  });

  it('allows after a grant, within one path segment for `*`, for its method only', async () => {
    users.roleGrants = { 'chat-user': [grant(1, 'get', '/api/v1/chat/*')] };
    await syncGrants();
    expect(await opa.allows(readChat)).toBe(true);
    expect(await opa.allows({ ...readChat, method: 'get' })).toBe(true);
    expect(await opa.allows(readMessages)).toBe(false);
    expect(await opa.allows(postChat)).toBe(false);
  });

  it('denies after the grant is switched off (status false)', async () => {
    users.roleGrants = { 'chat-user': [grant(1, 'GET', '/api/v1/chat/*', false)] };
    await syncGrants();
    expect(await opa.allows(readChat)).toBe(false);
  });

  it('allows across segments with `**`', async () => {
    users.roleGrants = { 'chat-user': [grant(2, 'GET', '/api/v1/chat/**')] };
    await syncGrants();
    expect(await opa.allows(readMessages)).toBe(true);
  });

  it('denies after the grant is revoked', async () => {
    users.roleGrants = { 'chat-user': [] };
    await syncGrants();
    expect(await opa.allows(readMessages)).toBe(false);
  });

  it('follows role changes of the user', async () => {
    users.roleGrants = { editor: [grant(3, 'POST', '/api/v1/chat/*')] };
    await syncGrants();
    expect(await opa.allows(postChat)).toBe(false);
    users.userRoles = { ann: ['chat-user', 'editor'] };
    expect((await sync.get('/role-users')).status).toBe(200);
    expect(await opa.allows(postChat)).toBe(true);
    users.userRoles = { ann: ['chat-user'] };
    expect((await sync.get('/role-users')).status).toBe(200);
    expect(await opa.allows(postChat)).toBe(false);
  });
});
