/**
 * Detects an OPA that lost the pushed document (restarted without the file, or its data replaced)
 * by comparing the revision marker it holds with the file's, and pushes the whole file again.
 * OPA's own file watching is not relied on: it misses updates through mounted-volume symlinks.
 */
import { runPeriodically, type Periodic } from './periodic';
import type { PolicySync } from './sync';

/** Failures (OPA still down) are logged and counted by the sync itself; the next probe retries. */
export function startOpaWatch(sync: PolicySync, intervalMs: number): Periodic | undefined {
  if (intervalMs === 0) return undefined;
  return runPeriodically(intervalMs, () => sync.verify('opa_watch'));
}
