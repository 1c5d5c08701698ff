/**
 * Failed sign-ins per client address, counted in this process before any password is hashed:
 * past `maxFailures` in a window an address is refused (429 with Retry-After) until the window
 * ends, so a guesser pays for its own refusals and its victims' accounts stay open. The dashboard
 * and the license API count apart. A success does not clear the count: an attacker holding one
 * valid account must not buy new guesses at others with it.
 *
 * Per process, so with several replicas an address gets up to that many times the limit; the
 * count is lost at a restart. The table is bounded: past `maxEntries` the oldest go first.
 */
export type Surface = 'dashboard' | 'api';

export interface AddressThrottleOptions {
  maxFailures: number;
  windowMs: number;
  maxEntries?: number;
  now?: () => number;
}

export interface AddressThrottle {
  /** Seconds until the address may try again, or null when it may now. */
  retryAfter(surface: Surface, address: string): number | null;
  fail(surface: Surface, address: string): void;
}

export function createAddressThrottle(options: AddressThrottleOptions): AddressThrottle {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const windows = new Map<string, { failures: number; endsAt: number }>();
  const keyOf = (surface: Surface, address: string) => `${surface} ${address}`;

  function live(key: string) {
    const entry = windows.get(key);
    if (entry && entry.endsAt <= now()) {
      windows.delete(key);
      return undefined;
    }
    return entry;
  }

  return {
    retryAfter(surface, address) {
      const entry = live(keyOf(surface, address));
      if (!entry || entry.failures < options.maxFailures) return null;
      return Math.max(1, Math.ceil((entry.endsAt - now()) / 1000));
    },
    fail(surface, address) {
      const key = keyOf(surface, address);
      const entry = live(key);
      if (entry) {
        entry.failures += 1;
        return;
      }
      if (windows.size >= maxEntries) {
        // Insertion order is age order: drop the oldest tenth in one go.
        let drop = Math.ceil(maxEntries / 10);
        for (const old of windows.keys()) {
          windows.delete(old);
          if (--drop === 0) break;
        }
      }
      windows.set(key, { failures: 1, endsAt: now() + options.windowMs });
    },
  };
}
