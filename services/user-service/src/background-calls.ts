/**
 * Outbound calls made in the background (policy-sync triggers, the core-backend name copy):
 * retried with exponential back-off until a 2xx, never awaited by the user's request.
 */
import { errorMessage } from '@pelita/kit';

export interface RetryPolicy {
  attempts: number;
  retryDelayMs: number;
  timeoutMs: number;
}

export interface BackgroundCall {
  send(signal: AbortSignal): Promise<Response>;
  /** One failed attempt: the answer's status, or the error when no answer came. */
  onAttemptFailed(failure: { attempt: number; status?: number; error?: string }): void;
  /** After the last attempt: whether one succeeded. */
  onSettled(succeeded: boolean): void;
}

export interface BackgroundCalls {
  run(call: BackgroundCall): void;
  /** Resolves when no call is in flight (tests, shutdown). */
  idle(): Promise<void>;
}

export function createBackgroundCalls({
  attempts,
  retryDelayMs,
  timeoutMs,
}: RetryPolicy): BackgroundCalls {
  const inFlight = new Set<Promise<void>>();

  async function attemptAll(call: BackgroundCall): Promise<void> {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await call.send(AbortSignal.timeout(timeoutMs));
        await res.body?.cancel();
        if (res.ok) return call.onSettled(true);
        call.onAttemptFailed({ attempt, status: res.status });
      } catch (err) {
        call.onAttemptFailed({ attempt, error: errorMessage(err) });
      }
      if (attempt < attempts) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)));
      }
    }
    call.onSettled(false);
  }

  return {
    run(call) {
      const running = attemptAll(call).finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
