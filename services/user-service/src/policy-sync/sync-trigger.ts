/**
 * Tells policy-sync that role data changed: `GET {POLICY_SYNC_URL}/role-users` or `/role-grants`,
 * in the background with retries. The user's request never waits for it nor fails with it.
 */
import type { Logger } from '@pelita/kit';
import { Counter, type Registry } from 'prom-client';
import { createBackgroundCalls } from '../background-calls';

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
  const calls = createBackgroundCalls({ attempts, retryDelayMs, timeoutMs });
  if (!baseUrl) logger.warn('POLICY_SYNC_URL is not set: role data changes do not reach OPA');

  function call(target: SyncTarget): void {
    calls.run({
      send: (signal) =>
        fetch(`${baseUrl}/${target}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
          signal,
        }),
      onAttemptFailed: ({ attempt, status, error }) =>
        status === undefined
          ? logger.warn({ target, attempt, err: error }, 'policy-sync unreachable')
          : logger.warn({ target, status, attempt }, 'policy-sync refused a sync trigger'),
      onSettled: (succeeded) => {
        counter.inc({ target, outcome: succeeded ? 'success' : 'failure' });
        if (!succeeded) {
          logger.error(
            { target },
            'giving up on triggering policy-sync; its periodic resync will catch up',
          );
        }
      },
    });
  }

  return {
    trigger(...targets) {
      if (!baseUrl) {
        for (const target of targets) counter.inc({ target, outcome: 'skipped' });
        return;
      }
      for (const target of new Set(targets)) call(target);
    },
    idle: () => calls.idle(),
  };
}
