import type { V1Lease } from '@kubernetes/client-node';
import { createLogger } from '@pelita/kit';
import { waitFor } from '@pelita/testenv';
import { LeaderElector, microTime } from '../../src/controller/leader-election';
import type { KubeClient } from '../../src/kube/client';

/** An in-memory Lease store with the API's optimistic concurrency (resourceVersion → 409). */
function leaseStore() {
  let stored: V1Lease | undefined;
  let version = 0;
  const conflict = () => Object.assign(new Error('conflict'), { code: 409 });
  const client = {
    readLease: () => Promise.resolve(stored && structuredClone(stored)),
    createLease: (_ns: string, lease: V1Lease) => {
      if (stored) return Promise.reject(conflict());
      stored = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } };
      return Promise.resolve(stored);
    },
    replaceLease: (_ns: string, lease: V1Lease) => {
      if (lease.metadata?.resourceVersion !== stored?.metadata?.resourceVersion) {
        return Promise.reject(conflict());
      }
      stored = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } };
      return Promise.resolve(stored);
    },
  };
  return {
    client: client as unknown as KubeClient,
    holder: () => stored?.spec?.holderIdentity,
    lease: () => stored,
  };
}

const logger = createLogger({ name: 'test', level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = (what: string, condition: () => boolean, timeoutMs: number) =>
  waitFor(condition, { what, timeoutMs, intervalMs: 10 });

function elector(store: ReturnType<typeof leaseStore>, identity: string, events: string[]) {
  return new LeaderElector({
    client: store.client,
    namespace: 'ns',
    name: 'pelita-operator',
    identity,
    // Wide margins (20 renewals per lease) so a loaded machine cannot fake an expiry.
    leaseDurationMs: 1000,
    renewDeadlineMs: 600,
    retryPeriodMs: 50,
    logger,
    onStartedLeading: () => events.push(`${identity} leads`),
    onStoppedLeading: () => events.push(`${identity} lost`),
  });
}

describe('LeaderElector', () => {
  it('writes lease times with the six fractional digits MicroTime requires', () => {
    expect(microTime(new Date('2026-11-22T10:00:00.123Z'))).toBe('2026-11-22T10:00:00.123000Z');
  });

  it('lets one candidate lead while the other waits, and hands over on release', async () => {
    const store = leaseStore();
    const events: string[] = [];
    const a = elector(store, 'a', events);
    const b = elector(store, 'b', events);
    a.start();
    await until('a leads', () => a.isLeader, 1000);
    b.start();
    await sleep(1300); // longer than a lease: a keeps renewing, so b never takes over
    expect(events).toEqual(['a leads']);
    expect(store.holder()).toBe('a');
    expect(b.isLeader).toBe(false);

    await a.stop();
    expect(store.holder()).toBe('');
    await until('b leads', () => b.isLeader, 600); // retry periods, not a lease duration
    expect(events).toEqual(['a leads', 'b leads']);
    expect(store.lease()?.spec?.leaseTransitions).toBe(1);
    await b.stop();
  });

  it('takes over only after the holder stopped renewing for a whole lease duration', async () => {
    const store = leaseStore();
    const events: string[] = [];
    await store.client.createLease('ns', {
      metadata: { name: 'pelita-operator' },
      spec: { holderIdentity: 'crashed', leaseDurationSeconds: 2, leaseTransitions: 4 },
    });
    const b = elector(store, 'b', events);
    const started = Date.now();
    b.start();
    // leaseDurationSeconds in the stored record (2 s) is what a standby waits for.
    await until('b leads', () => b.isLeader, 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1950);
    expect(store.lease()?.spec?.leaseTransitions).toBe(5);
    await b.stop();
  });

  it('steps down when it cannot renew within the renew deadline', async () => {
    const store = leaseStore();
    const events: string[] = [];
    const a = elector(store, 'a', events);
    a.start();
    await until('a leads', () => a.isLeader, 1000);
    expect(a.isLeader).toBe(true);
    // The API goes away: every renewal fails.
    const failing = store.client as unknown as Record<string, unknown>;
    failing.readLease = () => Promise.reject(new Error('connection refused'));
    await until('a steps down', () => events.length === 2, 3000);
    expect(events).toEqual(['a leads', 'a lost']);
    expect(a.isLeader).toBe(false);
    await a.stop();
  });
});
