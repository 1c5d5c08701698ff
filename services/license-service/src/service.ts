/**
 * Puts the license service together from its settings: the PostgreSQL pool, the account,
 * session and secret-store modules, the app. Nothing connects until `start`, which migrates
 * under the start-up lock, makes the built-in roles and the first account, and sweeps expired
 * sessions now and then.
 */
import { join } from 'node:path';
import {
  createMetrics,
  createPostgresPool,
  migrate,
  withStartupLock,
  type Logger,
  type PasswordHasher,
  type Service,
  scryptPasswords,
} from '@pelita/kit';
import pg from 'pg';
import { ensureFirstRecords } from './admins/accounts';
import { createApp } from './app';
import { createAddressThrottle } from './auth/address-throttle';
import { cookieNames } from './auth/cookies';
import { createPasswordCheck } from './auth/password-check';
import { createSessionStore } from './auth/session-store';
import { createOwnCredentials } from './auth/own-credentials';
import { createSignIn } from './auth/sign-in';
import type { Settings } from './config';
import { createLoginNotifier } from './integrations/login-notifier';
import { createPipelineTrigger } from './integrations/pipeline-trigger';
import { registerMetrics } from './metrics';
import { createEnvironments } from './records/environment';
import { createSecretSeal } from './store/stored-secret';

/** `pg_advisory_lock` id of this service's start-up (an arbitrary constant of its own). */
const STARTUP_LOCK = 0x4c1c_5e01;
const MIGRATIONS = join(__dirname, '..', 'migrations');
const SWEEP_MS = 10 * 60_000;

export function createLicenseService(
  settings: Settings,
  logger: Logger,
  options: {
    /**
     * How account passwords are hashed: OWASP's scrypt cost unless given. Code only, never a
     * setting, so no installation can lower it; tests that are not about hashing pass a cheaper one.
     */
    passwords?: PasswordHasher;
  } = {},
): Service {
  const hasher = options.passwords ?? scryptPasswords();
  const metrics = createMetrics();
  const licenseMetrics = registerMetrics(metrics.registry);
  const seal = createSecretSeal(settings.ENCRYPTION_KEY);
  if (!settings.ENCRYPTION_KEY) {
    logger.warn('ENCRYPTION_KEY is not set: mapping credentials are stored unsealed');
  }
  const pool = createPostgresPool(pg.Pool, settings, { logger, registry: metrics.registry });
  const sessions = createSessionStore(pool, {
    idleMinutes: settings.SESSION_IDLE_MINUTES,
    maxHours: settings.SESSION_MAX_HOURS,
  });
  const notifier = createLoginNotifier({
    apiUrl: settings.TELEGRAM_API_URL,
    botToken: settings.TELEGRAM_BOT_TOKEN,
    chatId: settings.TELEGRAM_CHAT_ID,
    timeoutMs: settings.OUTBOUND_TIMEOUT_MS,
    logger,
    metrics: licenseMetrics,
  });
  const passwords = createPasswordCheck({
    pool,
    maxAttempts: settings.LOGIN_MAX_ATTEMPTS,
    lockMinutes: settings.LOGIN_LOCK_MINUTES,
    throttle: createAddressThrottle({
      maxFailures: settings.LOGIN_ADDRESS_MAX_FAILURES,
      windowMs: settings.LOGIN_ADDRESS_WINDOW_MINUTES * 60_000,
    }),
    hashing: {
      concurrency: settings.PASSWORD_CHECK_CONCURRENCY,
      maxWaitMs: settings.PASSWORD_CHECK_MAX_WAIT_MS,
    },
    hasher,
    metrics: licenseMetrics,
  });
  const app = createApp({
    logger,
    metrics,
    licenseMetrics,
    seal,
    pool,
    bodyLimit: settings.BODY_LIMIT,
    trustProxy: settings.TRUST_PROXY,
    passwords,
    hasher,
    sessions,
    cookies: cookieNames(settings.COOKIE_SECURE),
    secureCookies: settings.COOKIE_SECURE,
    signIn: createSignIn({
      pool,
      passwords,
      sessions,
      notifier,
      metrics: licenseMetrics,
      totpIssuer: settings.TOTP_ISSUER,
      totpMaxAttempts: settings.TOTP_MAX_ATTEMPTS,
      secondFactorMaxFailures: settings.SECOND_FACTOR_MAX_FAILURES,
      lockMinutes: settings.LOGIN_LOCK_MINUTES,
    }),
    ownCredentials: createOwnCredentials({ pool, passwords, hasher, sessions }),
    environments: createEnvironments({
      pool,
      infisicalUrl: settings.MAPPINGS_INFISICAL_URL,
      timeoutMs: settings.OUTBOUND_TIMEOUT_MS,
      pipelines: createPipelineTrigger({
        baseUrl: settings.GITLAB_URL,
        token: settings.GITLAB_TOKEN,
        projectId: settings.GITLAB_PROJECT_ID,
        timeoutMs: settings.OUTBOUND_TIMEOUT_MS,
      }),
      metrics: licenseMetrics,
      seal,
    }),
    readiness: {
      postgres: async () => {
        await pool.query('select 1');
      },
    },
  });
  let sweeper: NodeJS.Timeout | undefined;
  return {
    app,
    async start() {
      await withStartupLock(pool, STARTUP_LOCK, async (client) => {
        const applied = await migrate(client, MIGRATIONS);
        if (applied.length) logger.info({ applied }, 'migrations applied');
        await ensureFirstRecords(
          client,
          settings.ADMIN_EMAIL && settings.ADMIN_PASSWORD
            ? {
                email: settings.ADMIN_EMAIL,
                password: settings.ADMIN_PASSWORD,
                name: settings.ADMIN_NAME,
              }
            : undefined,
          hasher,
        );
      });
      sweeper = setInterval(() => {
        sessions.sweep().catch((err: unknown) => logger.warn({ err }, 'session sweep failed'));
      }, SWEEP_MS);
      sweeper.unref();
    },
    async stop() {
      clearInterval(sweeper);
      await notifier.idle();
      await pool.end();
    },
  };
}
