/**
 * OPA restarts. Empty (policies only): the OPA watch notices the missing revision marker and
 * pushes the whole document again, and decisions are as before. As a sidecar (started on the
 * shared directory): decisions are right from its first answer, before any push.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';
import { waitFor } from '@pelita/testenv';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const REQUESTS = [
  { user: 'ann', method: 'GET', path: '/api/v1/chat/12' },
  { user: 'ann', method: 'POST', path: '/api/v1/chat/12' },
  { user: 'bob', method: 'POST', path: '/api/v1/users' },
  { user: 'bob', method: 'GET', path: '/api/v1/chat/12' },
  { user: 'zoe', method: 'GET', path: '/api/v1/chat/12' },
];

describe('an OPA restart', () => {
  let users: UserServiceFixture;
  let opa: OpaProcess;
  let sync: PolicySyncUnderTest;

  beforeAll(async () => {
    users = await startUserService({
      userRoles: { ann: ['chat-user'], bob: ['admin'] },
      roleGrants: {
        'chat-user': [grant(1, 'GET', '/api/v1/chat/*')],
        admin: [grant(2, 'POST', '/api/v1/users')],
      },
    });
    opa = await startOpa([POLICIES_DIR]);
    sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: opa.url,
      OPA_PROBE_INTERVAL_MS: '100',
    });
  });
  afterAll(async () => {
    await sync.stop();
    await opa.stop();
    await users.close();
  });

  const decisions = (server: OpaProcess) => Promise.all(REQUESTS.map((r) => server.allows(r)));

  it('is detected, and the whole document is pushed again with unchanged decisions', async () => {
    const before = await decisions(opa);
    expect(before).toEqual([true, false, true, false, false]);
    const document = await opa.data();

    await opa.stop();
    // Restarted empty: only the restore push (counted below) can bring the document back.
    opa = await startOpa([POLICIES_DIR], opa.port);

    // The revision marker is written after the document: once it is there, the push is whole.
    await waitFor(async () => (await opa.data()).pelita_policy_sync !== undefined, {
      what: 'the document to be pushed again',
    });
    expect(await opa.data()).toEqual(document);
    expect(await decisions(opa)).toEqual(before);
    expect(await sync.metrics()).toMatch(
      /policy_sync_opa_pushes_total\{reason="restore",outcome="success"\} 1/,
    );
    expect(sync.logs.some((line) => line.includes('OPA had lost the policy data'))).toBe(true);
  });

  it('is also repaired when something replaced OPA data behind the service', async () => {
    await fetch(`${opa.url}/v1/data`, { method: 'PUT', body: '{"user_roles": {}}' });
    expect(await opa.allows(REQUESTS[0] as (typeof REQUESTS)[0])).toBe(false);
    await waitFor(() => opa.allows(REQUESTS[0] as (typeof REQUESTS)[0]), {
      what: 'the document to be pushed again',
    });
  });

  it('as a sidecar loading the shared directory answers decisions at once, before any push', async () => {
    const expected = await decisions(opa);
    // The directory, not the file: on a pod's first start the file does not exist yet, and
    // OPA refuses to start on a missing file but loads an empty directory.
    const sidecar = await startOpa([dirname(sync.dataFile), POLICIES_DIR]);
    try {
      expect(await decisions(sidecar)).toEqual(expected);
      const { pelita_policy_sync: _marker, ...document } = await opa.data();
      expect(await sidecar.data()).toEqual(document);
    } finally {
      await sidecar.stop();
    }
  });

  it("as a sidecar starts on the pod's empty shared directory, denying until the first push", async () => {
    const empty = mkdtempSync(join(tmpdir(), 'policy-sync-share-'));
    const sidecar = await startOpa([empty, POLICIES_DIR]);
    try {
      expect(await decisions(sidecar)).toEqual([false, false, false, false, false]);
    } finally {
      await sidecar.stop();
    }
  });
});
