/**
 * Which incoming requests the kit's fast path serves, for the tracing setup: the fast path makes
 * its own server span for them, so the http instrumentation must not make a second one. Imports
 * nothing, so `tracing.ts` can use it before express or http is loaded.
 */
import type { IncomingMessage } from 'node:http';

type Matcher = (req: IncomingMessage) => boolean;

const matchers = new Set<Matcher>();
let tracing = false;

/** Registered by each app's fast path (a process may hold several apps: tests do). */
export function registerFastPath(matcher: Matcher): void {
  matchers.add(matcher);
}

export function takesFastPath(req: IncomingMessage): boolean {
  for (const matcher of matchers) if (matcher(req)) return true;
  return false;
}

/** Set by `startTracing` once the SDK runs: only then does the fast path make spans. */
export function markTracingStarted(): void {
  tracing = true;
}

export function isTracingStarted(): boolean {
  return tracing;
}
