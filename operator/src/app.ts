/** The operator's HTTP endpoints: Kubernetes-style `/healthz` and `/readyz` beside the kit's own. */
import { createService, defineRoute, type Logger, type Metrics } from '@pelita/kit';
import type { Express } from 'express';
import { z } from 'zod';

const Ok = z.object({ status: z.literal('ok') });

export function createApp({ logger, metrics }: { logger: Logger; metrics: Metrics }): Express {
  // A standby replica is healthy and ready too: it serves metrics and waits for the lease.
  const ok = () => ({ status: 'ok' as const });
  return createService({
    name: 'pelita-operator',
    description: 'Reconciles PlatformInstall resources into tenant platforms',
    logger,
    metrics,
    routes: [
      defineRoute({
        method: 'get',
        path: '/healthz',
        summary: 'Liveness (Kubernetes convention)',
        tags: ['operations'],
        responses: { 200: { description: 'Alive', schema: Ok } },
        handler: ok,
      }),
      defineRoute({
        method: 'get',
        path: '/readyz',
        summary: 'Readiness (Kubernetes convention)',
        tags: ['operations'],
        responses: { 200: { description: 'Ready', schema: Ok } },
        handler: ok,
      }),
    ],
  });
}
