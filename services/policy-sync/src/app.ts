/** Builds the policy sync's express app from its dependencies; no listening, no environment reads. */
import {
  createService,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  requireServiceToken,
} from '@pelita/kit';
import type { Express } from 'express';
import { infoBody, InfoBody } from './routes/info-body';
import { syncRoutes } from './routes/sync';
import type { SyncOnRequest } from './sync/sync-on-request';

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  syncOnRequest: SyncOnRequest;
  /** `SYNC_SERVICE_TOKEN`; callers are not checked when undefined. */
  serviceToken: string | undefined;
  readiness: Record<string, ReadinessCheck>;
}

export function createApp(deps: AppDeps): Express {
  return createService({
    name: 'policy-sync',
    description:
      'Pulls user-to-role and role-to-grant data from the user service, keeps it in the shared ' +
      'policy data file and pushes it to OPA',
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.readiness,
    health: () => ({ status: 'UP' }),
    errorBody: infoBody,
    errorSchema: InfoBody,
    ...(deps.serviceToken === undefined ? {} : { guard: requireServiceToken(deps.serviceToken) }),
    routes: syncRoutes({ syncOnRequest: deps.syncOnRequest }),
  });
}
