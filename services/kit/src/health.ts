/** Liveness (`/health`) and readiness (`/ready`, which runs the service's dependency checks). */
import { z } from 'zod';
import { errorMessage } from './error-message';
import { redactString } from './redact';
import { defineRoute, type RouteDefinition } from './route';

/** Resolves when the dependency answers; rejects (or times out) when it does not. */
export type ReadinessCheck = () => Promise<unknown>;

export interface HealthOptions {
  checks: Record<string, ReadinessCheck>;
  /** Body of `/health`; the seed's `{ status: 'OK', timestamp }` when omitted. */
  health?: () => unknown;
  isStarting: () => boolean;
  isShuttingDown: () => boolean;
  checkTimeoutMs?: number;
}

const CheckResult = z.object({
  status: z.enum(['up', 'down']),
  error: z.string().optional(),
});
const ReadyBody = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), CheckResult),
});

export function healthRoutes(options: HealthOptions): RouteDefinition[] {
  const { checks, isStarting, isShuttingDown, checkTimeoutMs = 3000 } = options;
  const health = options.health ?? (() => ({ status: 'OK', timestamp: new Date().toISOString() }));

  return [
    defineRoute({
      method: 'get',
      path: '/health',
      summary: 'Liveness: the process is up and serving',
      tags: ['operations'],
      responses: { 200: { description: 'The service is alive' } },
      handler: () => health(),
    }),
    defineRoute({
      method: 'get',
      path: '/ready',
      summary: 'Readiness: every dependency this service needs answers',
      tags: ['operations'],
      responses: {
        200: { description: 'Ready to serve', schema: ReadyBody },
        503: {
          description: 'A dependency is down, or the service is starting or shutting down',
          schema: ReadyBody,
        },
      },
      handler: async (_input, _req, res) => {
        const results = await runChecks(checks, checkTimeoutMs);
        if (isStarting()) results.startup = { status: 'down', error: 'starting' };
        if (isShuttingDown()) results.shutdown = { status: 'down', error: 'shutting down' };
        const ready = Object.values(results).every((result) => result.status === 'up');
        res
          .status(ready ? 200 : 503)
          .json({ status: ready ? 'ready' : 'not_ready', checks: results });
      },
    }),
  ];
}

async function runChecks(checks: Record<string, ReadinessCheck>, timeoutMs: number) {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), timeoutMs);
        return [name, { status: 'up' as const }] as const;
      } catch (err) {
        return [name, { status: 'down' as const, error: redactString(errorMessage(err)) }] as const;
      }
    }),
  );
  return Object.fromEntries(entries) as Record<string, z.infer<typeof CheckResult>>;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
