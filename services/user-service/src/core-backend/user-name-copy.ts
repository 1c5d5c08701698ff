/**
 * Copies a user's name to the core backend after each user update:
 * `PUT {CORE_BACKEND_URL}/utils/update-user-name/:id` with `{ username, full_name }`, in the
 * background with retries; skipped when the address is not configured (the seed's rule).
 */
import type { Logger } from '@pelita/kit';
import { Counter, type Registry } from 'prom-client';

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
  copy(user: { id: string; username: string; full_name: string }): void;
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
  const inFlight = new Set<Promise<void>>();

  async function send(user: { id: string; username: string; full_name: string }): Promise<void> {
    const url = `${baseUrl}/utils/update-user-name/${encodeURIComponent(user.id)}`;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await fetch(url, {
          method: 'PUT',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({ username: user.username, full_name: user.full_name }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.body?.cancel();
        if (res.ok) {
          counter.inc({ outcome: 'success' });
          return;
        }
        logger.warn({ status: res.status, attempt }, 'core backend refused the user name update');
      } catch (err) {
        logger.warn({ attempt, err: (err as Error).message }, 'core backend unreachable');
      }
      if (attempt < attempts) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)));
      }
    }
    counter.inc({ outcome: 'failure' });
    logger.error({ user: user.id }, 'giving up on copying the user name to the core backend');
  }

  return {
    copy(user) {
      if (!baseUrl) {
        counter.inc({ outcome: 'skipped' });
        return;
      }
      const running = send(user).finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
