import { PoolRegistry } from '../../src/connection/pool-registry';
import { TargetPool, type PoolLifecycle } from '../../src/connection/target-pool';

interface FakeConnection {
  id: number;
  reusable: boolean;
  resets: number;
  closed: boolean;
}

function fakeLifecycle(options: { failOpen?: boolean; failReset?: boolean } = {}) {
  const opened: FakeConnection[] = [];
  const lifecycle: PoolLifecycle<FakeConnection> = {
    open: () => {
      if (options.failOpen) return Promise.reject(new Error('cannot open'));
      const connection = { id: opened.length + 1, reusable: true, resets: 0, closed: false };
      opened.push(connection);
      return Promise.resolve(connection);
    },
    reusable: (connection) => connection.reusable,
    reset: (connection) => {
      if (options.failReset) return Promise.reject(new Error('cannot reset'));
      connection.resets += 1;
      return Promise.resolve();
    },
    close: (connection) => {
      connection.closed = true;
      return Promise.resolve();
    },
  };
  return { lifecycle, opened };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const LIMITS = { max: 2, idleMs: 10_000, acquireTimeoutMs: 200 };

describe('TargetPool', () => {
  it('reuses a released connection after resetting it', async () => {
    const { lifecycle, opened } = fakeLifecycle();
    const pool = new TargetPool('test', lifecycle, LIMITS);
    const first = await pool.acquire();
    first.release();
    await tick();
    const second = await pool.acquire();
    expect(second.connection).toBe(first.connection);
    expect(second.connection.resets).toBe(1);
    expect(opened).toHaveLength(1);
    second.release();
    await pool.close();
  });

  it('closes instead of reusing a connection that is not reusable or fails its reset', async () => {
    const { lifecycle, opened } = fakeLifecycle();
    const pool = new TargetPool('test', lifecycle, LIMITS);
    const lease = await pool.acquire();
    lease.connection.reusable = false;
    lease.release();
    await tick();
    expect(opened[0]?.closed).toBe(true);

    const failing = fakeLifecycle({ failReset: true });
    const other = new TargetPool('test', failing.lifecycle, LIMITS);
    (await other.acquire()).release();
    await tick();
    expect(failing.opened[0]?.closed).toBe(true);
  });

  it('never holds more than max connections; a waiter gets the next released one', async () => {
    const { lifecycle, opened } = fakeLifecycle();
    const pool = new TargetPool('test', lifecycle, LIMITS);
    const a = await pool.acquire();
    const b = await pool.acquire();
    const waiting = pool.acquire();
    expect(pool.stats()).toEqual({ label: 'test', idle: 0, busy: 2, waiting: 1 });
    a.release();
    const c = await waiting;
    expect(c.connection).toBe(a.connection);
    expect(opened).toHaveLength(2);
    b.release();
    c.release();
    await pool.close();
  });

  it('gives up waiting after the acquire time-out', async () => {
    const { lifecycle } = fakeLifecycle();
    const pool = new TargetPool('test', lifecycle, { ...LIMITS, max: 1, acquireTimeoutMs: 30 });
    const held = await pool.acquire();
    await expect(pool.acquire()).rejects.toMatchObject({ kind: 'pool_exhausted' });
    held.release();
    await pool.close();
  });

  it('closes idle connections after idleMs and then retires', async () => {
    const { lifecycle, opened } = fakeLifecycle();
    const onRetired = jest.fn();
    const pool = new TargetPool('test', lifecycle, { ...LIMITS, idleMs: 20 }, onRetired);
    (await pool.acquire()).release();
    await tick();
    expect(pool.stats().idle).toBe(1);
    while (!onRetired.mock.calls.length) await tick();
    expect(opened[0]?.closed).toBe(true);
    expect(onRetired).toHaveBeenCalledTimes(1);
    expect(pool.usable).toBe(false);
  });

  it('retires at once when its first connection cannot be opened', async () => {
    const { lifecycle } = fakeLifecycle({ failOpen: true });
    const onRetired = jest.fn();
    const pool = new TargetPool('test', lifecycle, LIMITS, onRetired);
    await expect(pool.acquire()).rejects.toThrow('cannot open');
    expect(onRetired).toHaveBeenCalledTimes(1);
  });

  it('close() waits for busy connections, which are closed when released', async () => {
    const { lifecycle, opened } = fakeLifecycle();
    const pool = new TargetPool('test', lifecycle, LIMITS);
    const lease = await pool.acquire();
    let closed = false;
    const closing = pool.close().then(() => (closed = true));
    await tick();
    expect(closed).toBe(false);
    lease.release();
    await closing;
    expect(opened[0]?.closed).toBe(true);
  });
});

describe('PoolRegistry', () => {
  const poolOf =
    (lifecycle: PoolLifecycle<FakeConnection>, label = 'test') =>
    (onRetired: () => void) =>
      Promise.resolve(new TargetPool(label, lifecycle, LIMITS, onRetired));

  it('shares one pool per key', async () => {
    const { lifecycle, opened } = fakeLifecycle();
    const registry = new PoolRegistry<FakeConnection>(10);
    (await registry.acquire('a', poolOf(lifecycle))).release();
    await tick();
    (await registry.acquire('a', poolOf(lifecycle))).release();
    expect(opened).toHaveLength(1);
    expect(registry.targets).toBe(1);
    await registry.closeAll();
  });

  it('keeps at most maxTargets pools, closing the least recently used', async () => {
    const lifecycles = ['a', 'b', 'c'].map(() => fakeLifecycle());
    const registry = new PoolRegistry<FakeConnection>(2);
    for (const [i, key] of ['a', 'b'].entries()) {
      (await registry.acquire(key, poolOf(lifecycles[i]!.lifecycle))).release();
    }
    await tick();
    // Using "a" again makes "b" the least recently used.
    (await registry.acquire('a', poolOf(lifecycles[0]!.lifecycle))).release();
    await tick();
    (await registry.acquire('c', poolOf(lifecycles[2]!.lifecycle))).release();
    await tick();
    expect(registry.targets).toBe(2);
    expect(lifecycles[1]!.opened[0]?.closed).toBe(true);
    expect(lifecycles[0]!.opened[0]?.closed).toBe(false);
    await registry.closeAll();
    expect(lifecycles[0]!.opened[0]?.closed).toBe(true);
  });

  it('forgets a refused target and a retired pool', async () => {
    const registry = new PoolRegistry<FakeConnection>(10);
    await expect(
      registry.acquire('refused', () => Promise.reject(new Error('host not allowed'))),
    ).rejects.toThrow('host not allowed');
    await tick();
    expect(registry.targets).toBe(0);

    const { lifecycle } = fakeLifecycle({ failOpen: true });
    await expect(registry.acquire('failing', poolOf(lifecycle))).rejects.toThrow('cannot open');
    expect(registry.targets).toBe(0);
  });

  it('reports the stats of every live pool', async () => {
    const { lifecycle } = fakeLifecycle();
    const registry = new PoolRegistry<FakeConnection>(10);
    const lease = await registry.acquire('a', poolOf(lifecycle, 'postgresql'));
    expect(registry.stats()).toEqual([{ label: 'postgresql', idle: 0, busy: 1, waiting: 0 }]);
    lease.release();
    await registry.closeAll();
  });
});
