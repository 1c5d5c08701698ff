/** createApp(deps): the kit's service with every route, guarded by token + session + OPA. No I/O at build. */
import {
  withActivityLog,
  type ActivityLog,
  createService,
  opaDecision,
  requireAuth,
  type DecideAccess,
  type Logger,
  type Metrics,
  type ReadinessCheck,
} from '@pelita/kit';
import type { Express, Request } from 'express';
import type { Redis } from 'ioredis';
import type { ActivitySearch } from './activity/activity-search';
import { loadActor, type FindUser } from './actor';
import type { DecisionExplanations } from './access/decision-explanation';
import type { Features } from './access/features';
import type { Policies } from './access/policies';
import type { PolicyData } from './access/policy-data';
import type { SigningKeys } from './auth/signing-keys';
import type { Roles } from './roles/roles';
import type { Shortcuts } from './roles/shortcuts';
import { activityRoutes } from './routes/activity';
import { authzRoutes } from './routes/authz';
import { meRoutes } from './routes/me';
import { authRoutes, type AuthFlows } from './routes/auth';
import { featureRoutes } from './routes/features';
import { openApiRoutes } from './routes/open-api';
import { photoRoutes } from './routes/photos';
import { policyRoutes } from './routes/policies';
import { roleRoutes } from './routes/roles';
import { shortcutRoutes } from './routes/shortcuts';
import type { RouteContext } from './routes/route-context';
import { userRoutes } from './routes/users';
import type { FormatTimestamp } from './timestamps';
import type { ProfilePhotos } from './users/profile-photos';
import type { Users } from './users/users';

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  redis: Redis;
  keys: SigningKeys;
  opaUrl: string;
  /** Replaces the OPA call (route tests); `opaDecision({ url: opaUrl })` otherwise. */
  decide?: DecideAccess;
  openApiToken: string | undefined;
  auth: AuthFlows;
  users: Users;
  /** Reads the user behind a token, for the actor of a request. */
  findUser: FindUser;
  roles: Roles;
  shortcuts: Shortcuts;
  features: Features;
  policies: Policies;
  policyData: PolicyData;
  explanations: DecisionExplanations;
  time: FormatTimestamp;
  activityLog: ActivityLog;
  photos: ProfilePhotos;
  photoMaxBytes: number;
  activitySearch: ActivitySearch;
  readiness: Record<string, ReadinessCheck>;
  /** Proxy hops whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: number;
}

export function createApp(deps: AppDeps): Express {
  const actorOf = (req: Request) => loadActor(deps.findUser, req.auth?.sub);
  const context: RouteContext = { actorOf, time: deps.time };
  const app = createService({
    name: 'user-service',
    description: 'Login, tokens, users, roles with levels, features, sub-features and policies',
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.readiness,
    guard: requireAuth({
      publicKey: deps.keys.publicKey,
      sessions: deps.redis,
      decide: deps.decide ?? opaDecision({ url: deps.opaUrl }),
      registry: deps.metrics.registry,
    }),
    routes: withActivityLog(deps.activityLog, [
      ...authRoutes(deps.auth, deps.keys),
      ...userRoutes(deps.users, context),
      ...meRoutes(deps.users, deps.auth.passwordReset, context),
      ...photoRoutes(deps.photos, context, deps.photoMaxBytes),
      ...roleRoutes(deps.roles, context),
      ...shortcutRoutes(deps.shortcuts, context),
      ...featureRoutes(deps.features, context),
      ...policyRoutes(deps.policies, context),
      ...openApiRoutes(deps.policyData, deps.openApiToken),
      ...activityRoutes(deps.activitySearch, context),
      ...authzRoutes(deps.explanations, context),
    ]),
  });
  // The login limits count per client address: behind an ingress that is only known from the
  // trusted proxies' X-Forwarded-For.
  app.set('trust proxy', deps.trustProxy);
  return app;
}
