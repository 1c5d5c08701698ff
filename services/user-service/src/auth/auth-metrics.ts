/** Counters of the authentication flows. */
import { Counter, type Registry } from 'prom-client';

export function createAuthMetrics(registry: Registry) {
  return {
    logins: new Counter({
      name: 'user_service_logins_total',
      help: 'Login attempts by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    tokensIssued: new Counter({
      name: 'user_service_tokens_issued_total',
      help: 'Tokens issued, by kind (access, refresh) and flow (login, refresh)',
      labelNames: ['kind', 'flow'] as const,
      registers: [registry],
    }),
    refreshReuse: new Counter({
      name: 'user_service_refresh_token_reuse_total',
      help: 'Replayed refresh tokens detected (each ended its session)',
      registers: [registry],
    }),
  };
}

export type AuthMetrics = ReturnType<typeof createAuthMetrics>;
