/**
 * One deadline over a whole forwarded call (JWT login, every redirect hop, the full body), which
 * also ends early when the caller goes away; it aborts with the HttpError that explains why.
 *
 * Not an AbortController: creating one (and its AbortSignal, an EventTarget) and adding and
 * removing its listeners was the largest single item of the proxy's own JavaScript in a CPU
 * profile of the forward path (issue 17). Nothing here needs the DOM event machinery: the
 * exchange subscribes one listener per hop and removes it when the hop ends.
 */
import { CallerGoneError, UpstreamTimeoutError } from './errors';

/** What the exchange needs of a cancellation: its state, and a way to hear about it. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: Error | undefined;
  /** Calls `listener` once, on abort; returns the unsubscribe function. */
  onAbort(listener: () => void): () => void;
}

/** Subscribes to the caller going away; called at once when it is gone already. */
export type CallerGone = (listener: () => void) => void;

export class Deadline implements CallSignal {
  aborted = false;
  reason: Error | undefined;
  private listeners: Array<() => void> = [];
  private cleared = false;
  private readonly timer: NodeJS.Timeout;

  constructor(timeoutMs: number, callerGone: CallerGone) {
    this.timer = setTimeout(() => this.abort(new UpstreamTimeoutError(timeoutMs)), timeoutMs);
    callerGone(() => this.abort(new CallerGoneError()));
  }

  onAbort(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index !== -1) this.listeners.splice(index, 1);
    };
  }

  /** Ends the deadline: no abort after this. */
  clear(): void {
    this.cleared = true;
    clearTimeout(this.timer);
  }

  private abort(reason: Error): void {
    if (this.aborted || this.cleared) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
