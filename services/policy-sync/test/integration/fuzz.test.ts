/** Schemathesis against the documented API, with the user service and OPA up (no 500 expected). */
import { runSchemathesis } from '@pelita/fuzz';
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const SYNC_TOKEN = 'fuzz-sync-token';

describe('the documented API under schemathesis', () => {
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
    });
  });
  afterAll(async () => {
    await sync.stop();
    await opa.stop();
    await users.close();
  });

  it('answers only as documented, with and without the caller token', async () => {
    const callers: Array<Record<string, string>> = [{}, { authorization: `Bearer ${SYNC_TOKEN}` }];
    for (const headers of callers) {
      const result = await runSchemathesis({ baseUrl: sync.url, headers });
      if (!result.passed) throw new Error(result.output);
    }
  }, 300_000);
});
