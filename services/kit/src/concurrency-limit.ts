/** At most `max` tasks run at once; the others wait in arrival order. */

export interface ConcurrencyLimit {
  /** Runs `task` when a slot is free; rejects without running it when `signal` aborts first. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

interface Waiter {
  start: () => void;
}

export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${max}`);
  }
  let active = 0;
  const queue: Waiter[] = [];

  const release = () => {
    active -= 1;
    const next = queue.shift();
    if (next) next.start();
  };

  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (active < max) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = queue.indexOf(waiter);
        if (at !== -1) queue.splice(at, 1);
        if (signal) reject(abortReason(signal));
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          active += 1;
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  };

  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason });
}
