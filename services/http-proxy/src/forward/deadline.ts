/**
 * One deadline over a whole forwarded call (JWT login, every redirect hop, the full body), which
 * also ends early when the caller goes away. Aborts with the HttpError that explains why.
 */
import { CallerGoneError, UpstreamTimeoutError } from './errors';

export interface Deadline {
  signal: AbortSignal;
  clear(): void;
}

export function startDeadline(timeoutMs: number, callerGone: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new UpstreamTimeoutError(timeoutMs)), timeoutMs);
  const onCallerGone = () => controller.abort(new CallerGoneError());
  if (callerGone.aborted) onCallerGone();
  else callerGone.addEventListener('abort', onCallerGone, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      callerGone.removeEventListener('abort', onCallerGone);
    },
  };
}
