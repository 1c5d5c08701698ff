/** Builds the license service's express app from its dependencies; no listening, no environment reads. */
import { join } from 'node:path';
import {
  createService,
  type Logger,
  type Metrics,
  type PasswordHasher,
  type ReadinessCheck,
} from '@pelita/kit';
import type { Express } from 'express';
import type { Pool } from 'pg';
import type { CookieNames } from './auth/cookies';
import type { PasswordCheck } from './auth/password-check';
import type { SessionStore } from './auth/session-store';
import type { OwnCredentials } from './auth/own-credentials';
import type { SignIn } from './auth/sign-in';
import { accountPages } from './dashboard/account-page';
import { activityPage } from './dashboard/activity-page';
import { environmentPages } from './dashboard/environment-pages';
import { homePage } from './dashboard/home-page';
import { loginRoutes } from './dashboard/login-pages';
import { notFoundPage } from './dashboard/not-found-page';
import { recordPages } from './dashboard/record-pages';
import type { Environments } from './records/environment';
import { apiRoutes, SeedError, seedErrorBody } from './routes/api';
import { livewireRoutes } from './routes/livewire';
import type { LicenseMetrics } from './metrics';
import type { SecretSeal } from './store/stored-secret';

/** `web/` beside `src/` and `dist/`: the dashboard's stylesheet. */
const WEB_DIR = join(__dirname, '..', 'web');

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  licenseMetrics: LicenseMetrics;
  seal: SecretSeal;
  pool: Pool;
  bodyLimit: string;
  /** Proxies whose X-Forwarded-For names the client (see TRUST_PROXY). */
  trustProxy: number;
  passwords: PasswordCheck;
  /** Hashes the passwords an administrator sets on the accounts pages. */
  hasher: Pick<PasswordHasher, 'hash'>;
  sessions: SessionStore;
  cookies: CookieNames;
  secureCookies: boolean;
  signIn: SignIn;
  ownCredentials: OwnCredentials;
  environments: Environments;
  readiness: Record<string, ReadinessCheck>;
}

export function createApp(deps: AppDeps): Express {
  const env = { pool: deps.pool, sessions: deps.sessions, cookies: deps.cookies };
  const app = createService({
    name: 'license-service',
    description:
      'Clients, licenses and secret-store mappings of a Pelita vendor: the Basic-auth license API ' +
      'tenants call (`/api/...`) and the admin dashboard (server-rendered HTML pages).',
    logger: deps.logger,
    metrics: deps.metrics,
    bodyLimit: deps.bodyLimit,
    errorBody: seedErrorBody,
    errorSchema: SeedError,
    readiness: deps.readiness,
    assets: { path: '/assets', dir: WEB_DIR },
    routes: [
      ...apiRoutes(deps.pool, deps.passwords, deps.licenseMetrics),
      ...livewireRoutes(),
      ...loginRoutes({ ...env, ...deps }),
      homePage(env),
      ...recordPages({ ...env, seal: deps.seal, hasher: deps.hasher }),
      ...environmentPages(env, deps.environments),
      activityPage(env),
      ...accountPages({ ...env, ...deps }),
      // Last: every other route matches first.
      notFoundPage(),
    ],
  });
  // The sign-in throttle counts per client address: behind an ingress that is only known from the
  // trusted proxies' X-Forwarded-For.
  app.set('trust proxy', deps.trustProxy);
  return app;
}
