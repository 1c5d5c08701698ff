/** How often pooled sessions were reset between requests, and how often the reset was skipped. */
import { Counter, type Registry } from 'prom-client';

export type SessionResetCounter = Counter<'engine' | 'reset'>;

export function registerSessionResets(registry: Registry): SessionResetCounter {
  return new Counter({
    name: 'db_proxy_session_resets_total',
    help: 'Session resets between requests on a pooled connection, by engine and kind (full, or skipped when the request provably changed nothing)',
    labelNames: ['engine', 'reset'] as const,
    registers: [registry],
  });
}
