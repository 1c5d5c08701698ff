import { waitFor } from '@pelita/testenv';
import { WorkQueue } from '../../src/controller/work-queue';

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** A handler whose calls finish only when the test releases them. */
function gatedHandler() {
  const calls: string[] = [];
  const gates: Array<() => void> = [];
  let running = 0;
  let peak = 0;
  const handler = async (key: string) => {
    calls.push(key);
    running += 1;
    peak = Math.max(peak, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running -= 1;
  };
  const releaseAll = async () => {
    while (gates.length > 0) {
      gates.splice(0).forEach((release) => release());
      await tick();
    }
  };
  return { calls, handler, releaseAll, peak: () => peak };
}

describe('WorkQueue', () => {
  it('queues a key once however many times it is added before it runs', async () => {
    const gated = gatedHandler();
    const queue = new WorkQueue({ handler: gated.handler, concurrency: 1 });
    queue.add('a'); // starts at once
    queue.add('b');
    queue.add('b');
    queue.add('b');
    expect(queue.depth).toBe(1);
    await gated.releaseAll();
    expect(gated.calls).toEqual(['a', 'b']);
    await queue.stop();
  });

  it('never runs one key twice at once, and runs it again when it was added meanwhile', async () => {
    const gated = gatedHandler();
    const queue = new WorkQueue({ handler: gated.handler, concurrency: 4 });
    queue.add('a');
    await tick();
    queue.add('a'); // while running: marked dirty, not started
    await tick();
    expect(gated.calls).toEqual(['a']);
    expect(gated.peak()).toBe(1);
    await gated.releaseAll();
    expect(gated.calls).toEqual(['a', 'a']);
    await queue.stop();
  });

  it('runs at most `concurrency` keys at once', async () => {
    const gated = gatedHandler();
    const queue = new WorkQueue({ handler: gated.handler, concurrency: 2 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    await tick();
    expect(gated.calls).toHaveLength(2);
    expect(queue.depth).toBe(3);
    await gated.releaseAll();
    expect(gated.calls.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(gated.peak()).toBe(2);
    await queue.stop();
  });

  it('retries a failing key with exponentially growing delays, and forgets them on success', async () => {
    const attempts: number[] = [];
    const retries: number[] = [];
    let failuresLeft = 3;
    const queue = new WorkQueue({
      concurrency: 1,
      baseDelayMs: 20,
      handler: () => {
        attempts.push(Date.now());
        if (failuresLeft-- > 0) return Promise.reject(new Error('apiserver down'));
        return Promise.resolve();
      },
      onError: (_key, _err, retryInMs) => retries.push(retryInMs),
    });
    queue.add('a');
    while (attempts.length < 4) await tick(10);
    expect(retries).toEqual([20, 40, 80]);
    // Each retry waited at least its delay.
    const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(retries[i]! - 2));
    // Success forgot the failures: the next failure starts from the base delay again.
    failuresLeft = 1;
    queue.add('a');
    while (retries.length < 4) await tick(5);
    expect(retries[3]).toBe(20);
    await queue.stop();
  });

  it('caps the overall retry rate with a token bucket', async () => {
    const retries: number[] = [];
    const start = Date.now();
    const queue = new WorkQueue({
      concurrency: 10,
      baseDelayMs: 1,
      retriesPerSecond: 10,
      retryBurst: 2,
      handler: () => Promise.reject(new Error('no')),
      onError: (_key, _err, retryInMs) => retries.push(retryInMs),
    });
    for (const key of ['a', 'b', 'c', 'd']) queue.add(key);
    while (retries.length < 4) await tick(5);
    // Two tokens in the bucket, then one every 100 ms — less what the bucket refilled while
    // the four failures happened (a loaded machine takes some milliseconds over them).
    const elapsed = Date.now() - start;
    expect(retries.slice(0, 2)).toEqual([1, 1]);
    expect(retries[2]).toBeLessThanOrEqual(100);
    expect(retries[2]).toBeGreaterThanOrEqual(100 - elapsed);
    expect(retries[3]).toBeLessThanOrEqual(200);
    expect(retries[3]).toBeGreaterThanOrEqual(200 - elapsed);
    await queue.stop();
  });

  it('addAfter keeps the earliest deadline per key: a retry is not held behind a resync', async () => {
    const calls: number[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      handler: () => {
        calls.push(Date.now());
        return Promise.resolve();
      },
    });
    const started = Date.now();
    queue.addAfter('a', 60_000); // the periodic resync, far away
    queue.addAfter('a', 20); // a retry: earlier, so it wins
    await waitFor(() => calls.length === 1, { what: 'the first call', intervalMs: 5 });
    expect(calls).toHaveLength(1);
    expect(calls[0]! - started).toBeGreaterThanOrEqual(18);
    // A later deadline does not push back an earlier pending one.
    queue.addAfter('a', 20);
    queue.addAfter('a', 60_000);
    await waitFor(() => calls.length === 2, { what: 'the second call', intervalMs: 5 });
    expect(calls).toHaveLength(2);
    await queue.stop();
  });

  it('a failed reconcile is retried after its backoff although a resync is pending', async () => {
    const attempts: number[] = [];
    let failuresLeft = 1;
    const queue = new WorkQueue({
      concurrency: 1,
      baseDelayMs: 20,
      handler: (key) => {
        attempts.push(Date.now());
        // What the controller does after every reconcile: schedule the next resync.
        queue.addAfter(key, 600_000);
        if (failuresLeft-- > 0) return Promise.reject(new Error('apiserver down'));
        return Promise.resolve();
      },
    });
    queue.add('a');
    await waitFor(() => attempts.length === 2, { what: 'the retry', intervalMs: 5 });
    expect(attempts).toHaveLength(2);
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(18);
    await queue.stop();
  });

  it('forget() drops a pending delayed add of the key', async () => {
    const calls: string[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      handler: (key) => {
        calls.push(key);
        return Promise.resolve();
      },
    });
    queue.addAfter('a', 10);
    queue.forget('a');
    queue.addAfter('b', 40); // positive signal: b runs after a's deadline has passed
    while (calls.length < 1) await tick(5);
    expect(calls).toEqual(['b']);
    await queue.stop();
  });

  it('stop() waits for the running handlers and drops what is queued', async () => {
    const gated = gatedHandler();
    const queue = new WorkQueue({ handler: gated.handler, concurrency: 1 });
    queue.add('a');
    queue.add('b');
    await tick();
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    await tick(20);
    expect(stopped).toBe(false);
    await gated.releaseAll();
    await stopping;
    expect(gated.calls).toEqual(['a']);
    queue.add('c');
    await tick();
    expect(gated.calls).toEqual(['a']);
  });
});
