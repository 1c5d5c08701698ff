/** createApp(deps): the kit's service with every area's routes, guarded by token + session + OPA. No I/O at build. */
import {
  createService,
  withActivityLog,
  type ActivityLog,
  opaDecision,
  requireAuth,
  type DecideAccess,
  type Logger,
  type Metrics,
  type ReadinessCheck,
  type SessionLookup,
} from '@pelita/kit';
import type { KeyObject } from 'node:crypto';
import type { Express } from 'express';
import type { Area } from './area';
import { WEB_DIR } from './embed/page-routes';

export interface AppDeps {
  logger: Logger;
  /** One entry per user action in INDEX_USER_ACTIVITY_LOG (the user service's shape). */
  activityLog: ActivityLog;
  metrics: Metrics;
  /** The user service's public key: access tokens are verified with it. */
  publicKey: () => KeyObject;
  /** Where live sessions are (the user service's Redis). */
  sessions: SessionLookup;
  opaUrl: string;
  /** Replaces the OPA call (route tests); `opaDecision({ url: opaUrl })` otherwise. */
  decide?: DecideAccess;
  /** Proxy hops whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: number;
  readiness: Record<string, ReadinessCheck>;
  areas: Area[];
}

export function createApp(deps: AppDeps): Express {
  const app = createService({
    name: 'core-backend',
    description: 'Workspaces and their knowledge: documents, topics, audios, databases, APIs',
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.areas.reduce((all, area) => ({ ...all, ...area.readiness }), deps.readiness),
    assets: { path: '/assets', dir: WEB_DIR },
    guard: requireAuth({
      publicKey: deps.publicKey,
      sessions: deps.sessions,
      decide: deps.decide ?? opaDecision({ url: deps.opaUrl }),
      registry: deps.metrics.registry,
    }),
    routes: withActivityLog(
      deps.activityLog,
      deps.areas.flatMap((area) => area.routes),
    ),
  });
  app.set('trust proxy', deps.trustProxy);
  return app;
}
