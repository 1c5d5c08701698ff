/**
 * Background loops that poll PostgreSQL for work, spaced out while there is none: a loop that
 * polled every second or two would keep a pooled connection open for ever in every installation,
 * idle or not, and a few hundred installations exceed PostgreSQL's `max_connections`. While rounds
 * find nothing the wait doubles up to IDLE_POLL_MAX_MS, long past the pool's idle time-out, so an
 * idle pool closes its connections between rounds; work made in this process wakes the loop at once.
 */
import { positiveInt } from './config';

/** The settings, to spread into the schema of a service with polling loops. */
export const idlePollSettings = {
  /** The longest wait between two rounds of a loop that finds nothing to do. */
  IDLE_POLL_MAX_MS: positiveInt(300_000),
};

export interface IdleBackoff {
  /** The wait after a round that found nothing: the interval, then doubling up to the most. */
  idle(): number;
  /** A round found work: the next idle wait is the interval again. */
  reset(): void;
}

export function createIdleBackoff(intervalMs: number, maxMs: number): IdleBackoff {
  let wait = intervalMs;
  return {
    idle() {
      const current = wait;
      wait = Math.min(Math.max(maxMs, intervalMs), wait * 2);
      return current;
    },
    reset() {
      wait = intervalMs;
    },
  };
}

/**
 * What a round found: `more` (work done, maybe more waiting: the next round at once), `waiting`
 * (work under way elsewhere, e.g. OCR tasks followed: the next round after the interval), `idle`.
 */
export type PollOutcome = 'more' | 'waiting' | 'idle';

export interface PollLoopOptions {
  /** One round; a rejection counts as `waiting` (tried again after the interval). */
  round: () => Promise<PollOutcome>;
  intervalMs: number;
  /** The longest wait while rounds find nothing (IDLE_POLL_MAX_MS). */
  idleMaxMs: number;
}

export interface PollLoop {
  start(): void;
  /** Work was made: a round now (or right after the one under way), and the short interval again. */
  wake(): void;
  /** Stops after the round under way. */
  stop(): Promise<void>;
}

export function createPollLoop({ round, intervalMs, idleMaxMs }: PollLoopOptions): PollLoop {
  const backoff = createIdleBackoff(intervalMs, idleMaxMs);
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let woken = false;

  const schedule = (ms: number) => {
    timer = setTimeout(tick, ms);
  };
  function tick(): void {
    timer = undefined;
    woken = false;
    running = round()
      .catch((): PollOutcome => 'waiting')
      .then((outcome) => {
        running = undefined;
        if (!started) return;
        if (outcome === 'idle' && !woken) return schedule(backoff.idle());
        backoff.reset();
        schedule(outcome === 'waiting' && !woken ? intervalMs : 0);
      });
  }

  return {
    start() {
      started = true;
      schedule(0);
    },
    wake() {
      backoff.reset();
      if (!started) return;
      if (running) {
        woken = true;
        return;
      }
      clearTimeout(timer);
      schedule(0);
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
