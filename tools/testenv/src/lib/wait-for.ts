/**
 * The one poller of tests, benchmarks and the testenv CLI: convergence across processes has no
 * event to await. The probe answers "not yet" with `false`, `undefined` or `null`, or by throwing
 * (a refused connection while a server starts); any other value ends the wait and is returned.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** What is awaited, for the timeout error: `timed out waiting for ${what}`. */
  what: string;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
}

type Pending = false | undefined | null;

/**
 * Polls `probe` until it gives a value (→ that value) or `timeoutMs` passes (→ throws, with the
 * probe's last error if it threw). `options` may be just the `what`.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitOptions | string,
): Promise<Exclude<T, Pending>> {
  const {
    what,
    timeoutMs = 10_000,
    intervalMs = 25,
  } = typeof options === 'string' ? { what: options } : options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== false && value !== undefined && value !== null) {
        return value as Exclude<T, Pending>;
      }
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${what}${reason}`);
    }
    await sleep(intervalMs);
  }
}
