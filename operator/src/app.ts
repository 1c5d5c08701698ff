/** The operator's HTTP endpoints: Kubernetes-style `/healthz` and `/readyz` beside the kit's own. */
import {
  createService,
  defineRoute,
  ErrorBodySchema,
  HttpError,
  type Logger,
  type Metrics,
} from '@pelita/kit';
import type { Express } from 'express';
import { z } from 'zod';

const Ok = z.object({ status: z.literal('ok') });

export interface AppOptions {
  logger: Logger;
  metrics: Metrics;
  /**
   * Liveness beyond "the process answers": false once the leader's last lease renewal is older
   * than the renew deadline, so the kubelet restarts a replica stuck believing it leads.
   */
  healthy?: () => boolean;
}

export function createApp({ logger, metrics, healthy = () => true }: AppOptions): Express {
  // A standby replica is healthy and ready too: it serves metrics and waits for the lease.
  const ok = () => ({ status: 'ok' as const });
  const alive = () => {
    if (!healthy()) {
      throw new HttpError(503, 'lease_not_renewed', 'the leader lease was not renewed in time');
    }
    return ok();
  };
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
        responses: {
          200: { description: 'Alive', schema: Ok },
          503: { description: 'Leading on a lease not renewed in time', schema: ErrorBodySchema },
        },
        handler: alive,
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
