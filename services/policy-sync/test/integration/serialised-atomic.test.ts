/**
 * Many concurrent sync calls while the user service's data changes: passes run one at a time and
 * coalesce, every caller gets an answer, the final state is the latest data, and a reader of the
 * shared file never sees a partial document.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const CALLS = 60;

describe('concurrent sync calls', () => {
  let users: UserServiceFixture;
  let opa: OpaProcess;
  let sync: PolicySyncUnderTest;

  beforeAll(async () => {
    users = await startUserService({ userRoles: {}, roleGrants: {} });
    opa = await startOpa([POLICIES_DIR]);
    sync = await startPolicySync({ URL_USER: users.url, URL_OPA: opa.url });
  });
  afterAll(async () => {
    await sync.stop();
    await opa.stop();
    await users.close();
  });

  it('serialises and coalesces them, and ends with the latest data in the file and in OPA', async () => {
    users.requests.length = 0;
    users.maxInFlight.clear();
    users.delayMs = 15;

    let reading = true;
    const partialReads: string[] = [];
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        const text = await readFile(sync.dataFile, 'utf8');
        reads += 1;
        try {
          const document = JSON.parse(text) as Record<string, unknown>;
          if (!document.user_roles || !document.role_grants) partialReads.push(text);
        } catch {
          partialReads.push(text);
        }
      }
    })();

    const answers: Array<Promise<Response>> = [];
    for (let i = 0; i < CALLS; i += 1) {
      users.userRoles = { [`user-${i}`]: [`role-${i}`] };
      users.roleGrants = { [`role-${i}`]: [grant(i, 'GET', `/api/v1/items/${i}`)] };
      answers.push(sync.get(i % 2 === 0 ? '/role-users' : '/role-grants'));
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const statuses = await Promise.all(answers.map(async (answer) => (await answer).status));
    reading = false;
    await reader;

    expect(statuses).toEqual(new Array<number>(CALLS).fill(200));
    // One pass at a time: never two fetches of the same endpoint at once.
    expect(users.maxInFlight.get('/open-api/role-users')).toBe(1);
    expect(users.maxInFlight.get('/open-api/role-grants')).toBe(1);
    // Coalesced: far fewer fetches than calls.
    expect(users.requests.length).toBeLessThan(CALLS / 2);

    const latest = { user_roles: users.userRoles, role_grants: users.roleGrants };
    expect(await sync.fileDocument()).toEqual(latest);
    const { pelita_policy_sync: _marker, ...inOpa } = await opa.data();
    expect(inOpa).toEqual(latest);
    expect(await opa.allows({ user: 'user-59', method: 'GET', path: '/api/v1/items/59' })).toBe(
      true,
    );

    expect(reads).toBeGreaterThan(10);
    expect(partialReads).toEqual([]);
  });

  it('leaves no temporary file behind, and the file is readable by the OPA container', async () => {
    expect(await readdir(dirname(sync.dataFile))).toEqual(['data.json']);
    expect((await stat(sync.dataFile)).mode & 0o777).toBe(0o644);
  });
});
