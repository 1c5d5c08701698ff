/**
 * Copies a user's name to the core backend after each user update:
 * `PUT {CORE_BACKEND_URL}/utils/update-user-name/:id` with `{ username, full_name }`, in the
 * background with retries; skipped when the address is not configured (the seed's rule).
 */
import type { Logger } from '@pelita/kit';
import { Counter, type Registry } from 'prom-client';
import { createBackgroundCalls } from '../background-calls';

export interface UserNameCopyOptions {
  baseUrl: string | undefined;
  token?: string | undefined;
  logger: Logger;
  registry: Registry;
  attempts?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
}

export interface UserNameCopy {
  copy(user: { id: string; username: string; fullName: string }): void;
  idle(): Promise<void>;
}

export function createUserNameCopy(options: UserNameCopyOptions): UserNameCopy {
  const { baseUrl, token, logger, attempts = 3, retryDelayMs = 250, timeoutMs = 5000 } = options;
  const counter = new Counter({
    name: 'user_service_core_backend_name_updates_total',
    help: 'User name copies sent to the core backend, by outcome',
    labelNames: ['outcome'] as const,
    registers: [options.registry],
  });
  const calls = createBackgroundCalls({ attempts, retryDelayMs, timeoutMs });

  return {
    copy(user) {
      if (!baseUrl) {
        counter.inc({ outcome: 'skipped' });
        return;
      }
      calls.run({
        send: (signal) =>
          fetch(`${baseUrl}/utils/update-user-name/${encodeURIComponent(user.id)}`, {
            method: 'PUT',
            headers: {
              'content-type': 'application/json',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify({ username: user.username, full_name: user.fullName }),
            signal,
          }),
        onAttemptFailed: ({ attempt, status, error }) =>
          status === undefined
            ? logger.warn({ attempt, err: error }, 'core backend unreachable')
            : logger.warn({ status, attempt }, 'core backend refused the user name update'),
        onSettled: (succeeded) => {
          counter.inc({ outcome: succeeded ? 'success' : 'failure' });
          if (!succeeded) {
            logger.error(
              { user: user.id },
              'giving up on copying the user name to the core backend',
            );
          }
        },
      });
    },
    idle: () => calls.idle(),
  };
}
