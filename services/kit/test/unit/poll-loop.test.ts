// Polling loops: straight on while there is work, the interval while work is under way elsewhere,
// a doubling wait while there is none, and a wake-up that looks at once.
import { createIdleBackoff, createPollLoop, type PollOutcome } from '../../src/poll-loop';

describe('createIdleBackoff', () => {
  it('doubles from the interval up to the most, and starts again after work', () => {
    const backoff = createIdleBackoff(1000, 5000);
    expect([backoff.idle(), backoff.idle(), backoff.idle(), backoff.idle()]).toEqual([
      1000, 2000, 4000, 5000,
    ]);
    backoff.reset();
    expect(backoff.idle()).toBe(1000);
  });

  it('never waits less than the interval, even with a smaller most', () => {
    const backoff = createIdleBackoff(1000, 10);
    expect([backoff.idle(), backoff.idle()]).toEqual([1000, 1000]);
  });
});

describe('createPollLoop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A loop whose rounds answer `outcomes` in turn (then idle), recording when each ran. */
  function loopOf(outcomes: PollOutcome[], intervalMs = 100, idleMaxMs = 1000) {
    const ranAt: number[] = [];
    const loop = createPollLoop({
      round: () => {
        ranAt.push(Date.now());
        return Promise.resolve(outcomes.shift() ?? 'idle');
      },
      intervalMs,
      idleMaxMs,
    });
    return { loop, ranAt };
  }
  const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);
  const gaps = (ranAt: number[]) => ranAt.slice(1).map((at, i) => at - ranAt[i]!);

  it('spaces idle rounds out, doubling up to the most', async () => {
    const { loop, ranAt } = loopOf([]);
    const start = Date.now();
    loop.start();
    await advance(5000);
    await loop.stop();
    expect(ranAt.map((at) => at - start)).toEqual([0, 100, 300, 700, 1500, 2500, 3500, 4500]);
  });

  it('runs the next round at once after work, and every interval while work is under way', async () => {
    const { loop, ranAt } = loopOf(['more', 'more', 'waiting', 'waiting', 'idle']);
    loop.start();
    await advance(450);
    await loop.stop();
    // "At once" is a timer of 0, which Node (and jest's clock) runs after 1 ms.
    expect(gaps(ranAt)).toEqual([1, 1, 100, 100, 100]);
  });

  it('counts a failed round as work under way: tried again after the interval', async () => {
    const ranAt: number[] = [];
    const loop = createPollLoop({
      round: () => {
        ranAt.push(Date.now());
        return Promise.reject(new Error('database away'));
      },
      intervalMs: 100,
      idleMaxMs: 1000,
    });
    const start = Date.now();
    loop.start();
    await advance(250);
    await loop.stop();
    expect(ranAt.map((at) => at - start)).toEqual([0, 100, 200]);
  });

  it('looks at once when woken, and waits the interval again after', async () => {
    const { loop, ranAt } = loopOf([]);
    const start = Date.now();
    loop.start();
    await advance(2000); // rounds at 0, 100, 300, 700, 1500; the next at 2500
    loop.wake();
    await advance(150);
    await loop.stop();
    expect(ranAt.map((at) => at - start)).toEqual([0, 100, 300, 700, 1500, 2000, 2100]);
  });

  it('runs no round after stop, and a wake-up after stop does nothing', async () => {
    const { loop, ranAt } = loopOf([]);
    loop.start();
    await advance(0);
    await loop.stop();
    loop.wake();
    await advance(5000);
    expect(ranAt).toHaveLength(1);
  });

  it('a wake-up during a round runs another round right after it', async () => {
    let finish: (outcome: PollOutcome) => void = () => undefined;
    let rounds = 0;
    const loop = createPollLoop({
      round: () => {
        rounds += 1;
        return rounds === 1
          ? new Promise<PollOutcome>((resolve) => (finish = resolve))
          : Promise.resolve('idle');
      },
      intervalMs: 100,
      idleMaxMs: 1000,
    });
    loop.start();
    await advance(0);
    loop.wake();
    finish('idle');
    await advance(0);
    expect(rounds).toBe(2);
    await loop.stop();
  });
});
