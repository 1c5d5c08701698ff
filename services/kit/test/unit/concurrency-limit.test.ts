import { createConcurrencyLimit } from '../../src/concurrency-limit';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('createConcurrencyLimit', () => {
  it('runs at most `max` tasks at once, the others in arrival order', async () => {
    const limit = createConcurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        limit.run(async () => {
          order.push(i);
          running += 1;
          peak = Math.max(peak, running);
          await tick();
          running -= 1;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(limit.active).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const limit = createConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit.run(() => Promise.resolve(1))).resolves.toBe(1);
  });

  it('drops waiting tasks whose signal aborts, without running them', async () => {
    const limit = createConcurrencyLimit(1);
    const controller = new AbortController();
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((resolve) => (release = resolve)));
    let ran = false;
    const second = limit.run(() => {
      ran = true;
      return Promise.resolve();
    }, controller.signal);
    expect(limit.waiting).toBe(1);
    controller.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    expect(limit.waiting).toBe(0);
    release();
    await first;
    expect(ran).toBe(false);
    await expect(limit.run(() => Promise.resolve('next'), controller.signal)).rejects.toThrow(
      'gone',
    );
  });

  it('rejects a limit below one', () => {
    expect(() => createConcurrencyLimit(0)).toThrow(RangeError);
  });
});
