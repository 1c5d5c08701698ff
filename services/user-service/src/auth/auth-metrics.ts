/** Counters of the authentication flows. */
import { declareSeries } from '@pelita/kit';
import type { Registry } from 'prom-client';

export function createAuthMetrics(registry: Registry) {
  return declareSeries(registry, {
    logins: {
      kind: 'counter',
      name: 'user_service_logins_total',
      help: 'Login attempts by outcome',
      labels: ['outcome'],
    },
    tokensIssued: {
      kind: 'counter',
      name: 'user_service_tokens_issued_total',
      help: 'Tokens issued, by kind (access, refresh) and flow (login, refresh)',
      labels: ['kind', 'flow'],
    },
    refreshReuse: {
      kind: 'counter',
      name: 'user_service_refresh_token_reuse_total',
      help: 'Replayed refresh tokens detected (each ended its session)',
    },
  });
}

export type AuthMetrics = ReturnType<typeof createAuthMetrics>;
