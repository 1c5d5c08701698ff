/** Polls until a condition holds (the shared poller of @pelita/testenv, with positional arguments). */
import { waitFor as poll } from '@pelita/testenv';

export function waitFor(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  return poll(condition, { what, timeoutMs, intervalMs: 50 });
}
