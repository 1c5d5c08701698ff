/**
 * Several replicas, each with its own file and OPA (the sidecar layout), sharing Redis: a trigger
 * on one replica converges all of them; a replica without the fan-out catches up by its periodic
 * resync.
 */
import { randomUUID } from 'node:crypto';
import { requireEnv } from '@pelita/testenv';
import { POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';
import { waitFor } from '@pelita/testenv';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

const { REDIS_URL } = requireEnv('REDIS_URL');

interface Replica {
  sync: PolicySyncUnderTest;
  opa: OpaProcess;
}

describe('replicas sharing Redis', () => {
  // Its own channel: other tests and other services use the same Redis.
  const channel = `pelita:policy-sync:test:${randomUUID()}`;
  let users: UserServiceFixture;
  let replicas: Replica[];

  beforeAll(async () => {
    users = await startUserService({
      userRoles: { ann: ['chat-user'] },
      roleGrants: { 'chat-user': [grant(1, 'GET', '/api/v1/chat/*')] },
    });
    replicas = [];
    for (let i = 0; i < 3; i += 1) {
      const opa = await startOpa([POLICIES_DIR]);
      const sync = await startPolicySync({
        URL_USER: users.url,
        URL_OPA: opa.url,
        REDIS_URL,
        SYNC_CHANNEL: channel,
      });
      replicas.push({ sync, opa });
    }
  });
  afterAll(async () => {
    for (const { sync, opa } of replicas) {
      await sync.stop();
      await opa.stop();
    }
    await users.close();
  });

  const ask = (replica: Replica, path: string) =>
    replica.opa.allows({ user: 'ann', method: 'POST', path });

  it('reports Redis in /ready', async () => {
    const replica = replicas[0] as Replica;
    expect(await (await replica.sync.get('/ready')).json()).toEqual({
      status: 'ready',
      checks: { opa: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('converges every replica after a trigger on one of them', async () => {
    const [first, ...others] = replicas as [Replica, ...Replica[]];
    users.roleGrants = { 'chat-user': [grant(2, 'POST', '/api/v1/chat/*/messages')] };
    users.requests.length = 0;

    const res = await first.sync.get('/role-grants');
    expect(res.status).toBe(200);
    const { revision, replicas: counted } = (await res.json()) as {
      revision: string;
      replicas: { expected: number; confirmed: number };
    };
    // The answer waited for every replica: each OPA holds the grant already.
    expect(counted).toEqual({ expected: 3, confirmed: 3 });
    expect(await ask(first, '/api/v1/chat/9/messages')).toBe(true);

    for (const replica of others) {
      expect(await ask(replica, '/api/v1/chat/9/messages')).toBe(true);
      expect(await replica.sync.fileDocument()).toEqual(await first.sync.fileDocument());
      expect((await replica.opa.data()).pelita_policy_sync).toEqual({ revision });
    }
    // One fetch per replica: the receiver skips its own trigger message.
    await waitFor(() => users.requests.length >= replicas.length, { what: 'every fetch' });
    expect(users.requests.map((r) => r.path)).toEqual(
      new Array<string>(replicas.length).fill('/open-api/role-grants'),
    );
    expect(await others[0]?.sync.metrics()).toMatch(
      /policy_sync_triggers_total\{trigger="peer"\} 1/,
    );
  });

  it('answers the caller even when a peer replica fails its sync', async () => {
    const [first, second] = replicas as [Replica, Replica];
    await second.opa.stop();
    users.userRoles = { ann: ['chat-user'], dan: ['chat-user'] };
    try {
      const res = await first.sync.get('/role-users');
      expect(res.status).toBe(200);
      // Its OPA does not hold the change: the caller learns that not every replica confirmed.
      expect(((await res.json()) as { replicas: unknown }).replicas).toEqual({
        expected: 3,
        confirmed: 2,
      });
      await waitFor(
        async () => JSON.stringify(await second.sync.fileDocument()).includes('"dan"'),
        { what: 'the file of the replica whose OPA is down' },
      );
    } finally {
      second.opa = await startOpa([POLICIES_DIR], second.opa.port);
    }
  });
});

describe('a replica without the fan-out', () => {
  it('catches up by its periodic resync (RESYNC_INTERVAL_MS)', async () => {
    const users = await startUserService({ userRoles: { ann: [] }, roleGrants: {} });
    const opa = await startOpa([POLICIES_DIR]);
    const sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: opa.url,
      RESYNC_INTERVAL_MS: '150',
    });
    try {
      const input = { user: 'ann', method: 'GET', path: '/api/v1/docs/1' };
      expect(await opa.allows(input)).toBe(false);
      users.userRoles = { ann: ['reader'] };
      users.roleGrants = { reader: [grant(5, 'GET', '/api/v1/docs/*')] };
      await waitFor(() => opa.allows(input), { what: 'the periodic resync' });
      expect(await sync.metrics()).toMatch(/policy_sync_triggers_total\{trigger="resync"\} [1-9]/);
    } finally {
      await sync.stop();
      await opa.stop();
      await users.close();
    }
  });
});
