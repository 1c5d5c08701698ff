/** The periodic full resync: repairs whatever a replica missed (a lost trigger, a failed pass). */
import { runPeriodically, type Periodic } from './periodic';
import { ALL_SOURCES } from './policy-data';
import type { PolicySync } from './sync';

/** Failures are logged and counted by the sync itself; the next round tries again. */
export function startResync(sync: PolicySync, intervalMs: number): Periodic | undefined {
  if (intervalMs === 0) return undefined;
  return runPeriodically(intervalMs, () => sync.sync(ALL_SOURCES, 'resync'));
}
