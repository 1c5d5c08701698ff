/**
 * Tells policy-sync that role data changed: `GET {POLICY_SYNC_URL}/role-users` or `/role-grants`,
 * in the background with retries. The user's request never waits for it nor fails with it.
 */
import type { Logger } from '@pelita/kit';
import { Counter, type Registry } from 'prom-client';

export type SyncTarget = 'role-users' | 'role-grants';

export interface SyncTriggerOptions {
  baseUrl: string | undefined;
  token?: string | undefined;
  logger: Logger;
  registry: Registry;
  attempts?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
}

export interface SyncTrigger {
  /** Starts a background sync call for each target (fire and forget). */
  trigger(...targets: SyncTarget[]): void;
  /** Resolves when no call is in flight (tests, shutdown). */
  idle(): Promise<void>;
}

export function createSyncTrigger(options: SyncTriggerOptions): SyncTrigger {
  const { baseUrl, token, logger, attempts = 4, retryDelayMs = 250, timeoutMs = 5000 } = options;
  const counter = new Counter({
    name: 'user_service_policy_sync_triggers_total',
    help: 'Calls to policy-sync after role data changed, by target and outcome',
    labelNames: ['target', 'outcome'] as const,
    registers: [options.registry],
  });
  const inFlight = new Set<Promise<void>>();
  if (!baseUrl) logger.warn('POLICY_SYNC_URL is not set: role data changes do not reach OPA');

  async function call(target: SyncTarget): Promise<void> {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await fetch(`${baseUrl}/${target}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.body?.cancel();
        if (res.ok) {
          counter.inc({ target, outcome: 'success' });
          return;
        }
        logger.warn({ target, status: res.status, attempt }, 'policy-sync refused a sync trigger');
      } catch (err) {
        logger.warn({ target, attempt, err: (err as Error).message }, 'policy-sync unreachable');
      }
      if (attempt < attempts) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)));
      }
    }
    counter.inc({ target, outcome: 'failure' });
    logger.error(
      { target },
      'giving up on triggering policy-sync; its periodic resync will catch up',
    );
  }

  return {
    trigger(...targets) {
      if (!baseUrl) {
        for (const target of targets) counter.inc({ target, outcome: 'skipped' });
        return;
      }
      for (const target of new Set(targets)) {
        const running = call(target).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
