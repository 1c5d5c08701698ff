/**
 * Redis away: a caller's sync does not wait for it, a replica started without it subscribes when
 * it comes, and a replica that lost its subscription runs a full sync when it is back (the
 * triggers published meanwhile were lost).
 */
import { freePort, POLICIES_DIR, startOpa, type OpaProcess } from '@pelita/testenv';
import { startPolicySync, type PolicySyncUnderTest } from './support/policy-sync-under-test';
import { startRedis, type RedisProcess } from './support/redis-process';
import { grant, startUserService, type UserServiceFixture } from './support/user-service-fixture';
import { waitFor } from '@pelita/testenv';

// OPA processes start and replicas converge here: more than jest's default 5 s on a busy machine.
jest.setTimeout(60_000);

describe('when Redis goes away and comes back', () => {
  let users: UserServiceFixture;
  let redisPort: number;
  let redis: RedisProcess | undefined;
  const opas: OpaProcess[] = [];
  const syncs: PolicySyncUnderTest[] = [];

  beforeAll(async () => {
    users = await startUserService({ userRoles: { ann: ['reader'] }, roleGrants: {} });
    redisPort = await freePort();
  });
  afterAll(async () => {
    for (const sync of syncs) await sync.stop();
    for (const opa of opas) await opa.stop();
    await redis?.stop();
    await users.close();
  });

  async function replica() {
    const opa = await startOpa([POLICIES_DIR]);
    const sync = await startPolicySync({
      URL_USER: users.url,
      URL_OPA: opa.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      SYNC_CHANNEL: 'pelita:policy-sync:outage-test',
    });
    opas.push(opa);
    syncs.push(sync);
    return { opa, sync };
  }

  const readyWithRedis = async (sync: PolicySyncUnderTest) => (await sync.get('/ready')).ok;

  it('keeps working without Redis, subscribes when it comes, and resyncs after losing it', async () => {
    // Both replicas start while Redis is down.
    const a = await replica();
    const b = await replica();
    expect((await b.sync.get('/ready')).status).toBe(503);

    const grantDocs = (id: number, path: string) => {
      users.roleGrants = { reader: [grant(id, 'GET', path)] };
    };
    const allowed = (opa: OpaProcess, path: string) =>
      opa.allows({ user: 'ann', method: 'GET', path });

    // A caller's sync answers while Redis is still down: publishing fails (and says so) instead
    // of queueing until Redis comes, which would hold this request past the test's time-out.
    grantDocs(1, '/api/v1/one');
    expect((await a.sync.get('/role-grants')).status).toBe(200);
    expect(a.sync.logs.some((line) => line.includes('could not trigger the other replicas'))).toBe(
      true,
    );

    // Redis comes: both subscribe, and triggers flow.
    redis = await startRedis(redisPort);
    await waitFor(async () => (await readyWithRedis(a.sync)) && readyWithRedis(b.sync), {
      timeoutMs: 15_000,
      what: 'both replicas to reach Redis',
    });
    grantDocs(2, '/api/v1/two');
    expect((await a.sync.get('/role-grants')).status).toBe(200);
    await waitFor(() => allowed(b.opa, '/api/v1/two'), { what: 'the trigger to reach b' });

    // Redis goes: the trigger is lost for b; when Redis is back, b's full sync catches up.
    await redis.stop();
    grantDocs(3, '/api/v1/three');
    expect((await a.sync.get('/role-grants')).status).toBe(200);
    expect(await allowed(b.opa, '/api/v1/three')).toBe(false);
    redis = await startRedis(redisPort);
    await waitFor(() => allowed(b.opa, '/api/v1/three'), {
      timeoutMs: 15_000,
      what: 'the full sync after b re-subscribed',
    });
    // Two catch-up syncs: when Redis first came, and when it came back.
    expect(await b.sync.metrics()).toMatch(/policy_sync_triggers_total\{trigger="reconnect"\} 2/);
    const logged = (text: string) => b.sync.logs.filter((line) => line.includes(text)).length;
    expect(logged('Redis unreachable at start')).toBe(1);
    expect(logged('Redis connection lost')).toBe(1);
    expect(logged('trigger subscription restored')).toBe(2);
  }, 60_000);
});
