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
const waitUntil = (what: string, condition: () => boolean, timeoutMs: number) =>
  waitFor(condition, { what, timeoutMs, intervalMs: 10 });

function elector(
  store: ReturnType<typeof leaseStore>,
  identity: string,
  events: string[],
  requestTimeoutMs?: number,
) {
  return new LeaderElector({
    client: store.client,
    namespace: 'ns',
    name: 'pelita-operator',
    identity,
    // Wide margins (20 renewals per lease) so a loaded machine cannot fake an expiry.
    leaseDurationMs: 1000,
    renewDeadlineMs: 600,
    retryPeriodMs: 50,
    requestTimeoutMs,
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
    await waitUntil('a leads', () => a.isLeader, 1000);
    b.start();
    await sleep(1300); // longer than a lease: a keeps renewing, so b never takes over
    expect(events).toEqual(['a leads']);
    expect(store.holder()).toBe('a');
    expect(b.isLeader).toBe(false);

    await a.stop();
    expect(store.holder()).toBe('');
    await waitUntil('b leads', () => b.isLeader, 600); // retry periods, not a lease duration
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
    await waitUntil('b leads', () => b.isLeader, 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1950);
    expect(store.lease()?.spec?.leaseTransitions).toBe(5);
    await b.stop();
  });

  it('steps down when it cannot renew within the renew deadline', async () => {
    const store = leaseStore();
    const events: string[] = [];
    const a = elector(store, 'a', events);
    a.start();
    await waitUntil('a leads', () => a.isLeader, 1000);
    expect(a.isLeader).toBe(true);
    // The API goes away: every renewal fails.
    const failing = store.client as unknown as Record<string, unknown>;
    failing.readLease = () => Promise.reject(new Error('connection refused'));
    await waitUntil('a steps down', () => events.length === 2, 3000);
    expect(events).toEqual(['a leads', 'a lost']);
    expect(a.isLeader).toBe(false);
    await a.stop();
  });
});

describe('LeaderElector with a hung API', () => {
  /** A read that never answers; it ends only when the request's signal aborts (if it has one). */
  function hang(signal?: AbortSignal): Promise<never> {
    return new Promise((_resolve, reject) =>
      signal?.addEventListener('abort', () => reject(new Error('request timed out'))),
    );
  }

  it('time-boxes each lease request: a hung renew is abandoned and the next one renews', async () => {
    const store = leaseStore();
    const events: string[] = [];
    // Abandoned after 100 ms, far inside the 600 ms renew deadline.
    const a = elector(store, 'a', events, 100);
    a.start();
    await waitUntil('a leads', () => a.isLeader, 1000);
    const client = store.client as unknown as Record<string, unknown>;
    const read = client.readLease as (ns: string, name: string) => Promise<V1Lease | undefined>;
    let hung = 0;
    client.readLease = (ns: string, name: string, signal?: AbortSignal) =>
      hung++ === 0 ? hang(signal) : read(ns, name);
    const renewedBefore = store.lease()?.spec?.renewTime;
    // Positive signal: a renewal after the hung one was written.
    await waitUntil(
      'a renewal after the hung one',
      () => hung > 1 && store.lease()?.spec?.renewTime !== renewedBefore,
      3000,
    );
    expect(hung).toBeGreaterThan(1);
    expect(events).toEqual(['a leads']);
    expect(a.healthy()).toBe(true);
    await a.stop();
  });

  it('steps down at the renew deadline even while a request never returns', async () => {
    const store = leaseStore();
    const events: string[] = [];
    const a = elector(store, 'a', events);
    a.start();
    await waitUntil('a leads', () => a.isLeader, 1000);
    // A request that ignores its time-out: only the independent timer can end leadership.
    (store.client as unknown as Record<string, unknown>).readLease = () => hang();
    const hungAt = Date.now();
    await waitUntil('a steps down', () => events.length === 2, 3000);
    expect(events).toEqual(['a leads', 'a lost']);
    expect(a.isLeader).toBe(false);
    // Within the renew deadline (600 ms) of the last renewal, not after the lease (1000 ms).
    expect(Date.now() - hungAt).toBeLessThan(1000);
    expect(a.healthy()).toBe(false);
    await a.stop();
  });

  it('is healthy while standing by or renewing, unhealthy once the last renew is too old', async () => {
    const store = leaseStore();
    await store.client.createLease('ns', {
      metadata: { name: 'pelita-operator' },
      spec: { holderIdentity: 'other', leaseDurationSeconds: 60, renewTime: new Date() },
    });
    const events: string[] = [];
    const b = elector(store, 'b', events);
    b.start();
    await sleep(100);
    expect(b.isLeader).toBe(false);
    expect(b.healthy()).toBe(true); // a standby is healthy
    await b.stop();

    const c = elector(leaseStore(), 'c', events);
    c.start();
    await waitUntil('c leads', () => c.isLeader, 1000);
    expect(c.healthy()).toBe(true);
    // Block the event loop past the renew deadline: no timer can run, yet /healthz must fail.
    const until = Date.now() + 700;
    while (Date.now() < until) {
      // busy
    }
    expect(c.healthy()).toBe(false);
    await c.stop();
  });
});
