/**
 * Puts the user service together from its settings: pools, key pair, repositories, domain
 * modules, app. `start` applies migrations and creates the first admin; `main.ts` and the
 * integration tests both build the service here.
 */
import { join } from 'node:path';
import {
  createActivityLog,
  createActivityRepository,
  type ActivityRepository,
  createMetrics,
  createPostgresPool,
  migrate,
  withStartupLock,
  type DecideAccess,
  type Logger,
  type PasswordHasher,
  type Service,
  moveInBackground,
  scryptPasswords,
  searchLayout,
} from '@pelita/kit';
import { createObjectStore } from '@pelita/kit/object-store';
import { createRedisClient } from '@pelita/kit/redis-client';
import pg from 'pg';
import { createAccessRepository } from './access/access-repository';
import { createDecisionExplanation } from './access/decision-explanation';
import { createFeatures } from './access/features';
import { opaExplainClient } from './access/opa-explain-client';
import { createPolicies } from './access/policies';
import { createPolicyData } from './access/policy-data';
import { createPolicyDataRepository } from './access/policy-data-repository';
import { createActivitySearch } from './activity/activity-search';
import { createApp } from './app';
import { createAuthMetrics } from './auth/auth-metrics';
import { createLoginLimiter } from './auth/login-limiter';
import { createRequestLimiter } from './auth/request-limiter';
import { createLoginSessions } from './auth/login-sessions';
import { createPasswordReset } from './auth/password-reset';
import { createRegistration } from './auth/registration';
import { createEmailVerification } from './auth/email-verification';
import { createResetTokenStore } from './credentials/reset-token-store';
import { createSessionStore } from './credentials/session-store';
import { loadSigningKeys, type SigningKeys } from './auth/signing-keys';
import { licenseSettings, type Settings } from './config';
import { createUserNameCopy, type UserNameCopy } from './core-backend/user-name-copy';
import { createLicenseCheck } from './license/license-check';
import { createLicenseClient } from './license/license-client';
import { createMailer } from './mail/mailer';
import { createOutboxDispatcher, type OutboxDispatcher } from './policy-sync/outbox-dispatcher';
import { createOutboxRepository } from './policy-sync/outbox-repository';
import { createRoleDataChanges } from './policy-sync/role-data-changes';
import { createRoleRepository } from './roles/role-repository';
import { createRoles } from './roles/roles';
import { createShortcutRepository } from './roles/shortcut-repository';
import { createShortcuts } from './roles/shortcuts';
import { timestampFormatter } from './timestamps';
import { createEmailChange } from './users/email-change';
import { ensureFirstAdmin } from './users/first-admin';
import { createProfilePhotos } from './users/profile-photos';
import { createUserRepository } from './users/user-repository';
import { createUsers } from './users/users';

// Same directory from src/ (tests) and dist/ (built): both sit beside migrations/.
export const MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
/** Names the user service's start-up lock among advisory locks. */
export const STARTUP_LOCK = 7_301_001;

/** The kit's {@link Service}, plus what the integration tests reach into. */
export interface UserService extends Service {
  /** The activity log's index, when configured (tests refresh it to read their writes). */
  activity: ActivityRepository | undefined;
  keys: SigningKeys;
  /** Sends role-data changes to policy-sync; undefined without POLICY_SYNC_URL. */
  outbox: OutboxDispatcher | undefined;
  /**
   * Kept for callers of the earlier fire-and-forget trigger (core-backend's tests): `idle`
   * waits, up to 10 s, until policy-sync confirmed every change made so far, and resolves
   * either way.
   */
  syncTrigger: { idle(): Promise<void> };
  userNameCopy: UserNameCopy;
  /**
   * Applies migrations and creates the first admin under an advisory lock, then the activity
   * index and the photo bucket, and starts sending the policy-sync outbox. `runService` calls it
   * once the port is open.
   */
  start(): Promise<void>;
  /** Ends the outbox loop, waits for name copies, closes the pools. */
  stop(): Promise<void>;
}

export interface UserServiceOptions {
  /** Replaces the OPA call (benchmarks). */
  decide?: DecideAccess;
  /**
   * How passwords are hashed: OWASP's scrypt cost unless given. Code only, never a setting, so no
   * installation can lower it; tests that are not about hashing pass a cheaper one.
   */
  passwords?: PasswordHasher;
}

export function createUserService(
  settings: Settings,
  logger: Logger,
  options: UserServiceOptions = {},
): UserService {
  const passwords = options.passwords ?? scryptPasswords();
  const metrics = createMetrics();
  const pool = createPostgresPool(pg.Pool, settings, { logger, registry: metrics.registry });
  // ioredis puts keyPrefix before every key of every command (and of a script's KEYS), so no
  // key escapes it; the session store adds it to the keys its script builds itself.
  const redis = createRedisClient(settings, { keyPrefix: settings.REDIS_KEY_PREFIX });
  const keys = loadSigningKeys(
    settings.JWT_PRIVATE_KEY,
    settings.JWT_PUBLIC_KEY,
    logger,
    settings.ALLOW_EPHEMERAL_SIGNING_KEY,
  );
  const outboxRepository = createOutboxRepository(pool);
  const outbox = settings.POLICY_SYNC_URL
    ? createOutboxDispatcher({
        pool,
        outbox: outboxRepository,
        baseUrl: settings.POLICY_SYNC_URL,
        token: settings.POLICY_SYNC_TOKEN,
        logger,
        registry: metrics.registry,
        pollMs: settings.POLICY_SYNC_POLL_MS,
        idlePollMaxMs: settings.IDLE_POLL_MAX_MS,
        retryMaxMs: settings.POLICY_SYNC_RETRY_MAX_MS,
        timeoutMs: settings.POLICY_SYNC_TIMEOUT_MS,
      })
    : undefined;
  if (!outbox) logger.warn('POLICY_SYNC_URL is not set: role data changes do not reach OPA');
  const roleData = createRoleDataChanges(pool, outboxRepository, outbox);
  const userNameCopy = createUserNameCopy({
    baseUrl: settings.CORE_BACKEND_URL,
    token: settings.CORE_BACKEND_TOKEN,
    logger,
    registry: metrics.registry,
  });
  const licenseConfig = licenseSettings(settings);
  const license = createLicenseCheck(
    licenseConfig ? createLicenseClient(licenseConfig) : undefined,
    logger,
  );
  const sessions = createSessionStore({
    redis,
    accessTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
    refreshTtlSeconds: settings.REFRESH_TOKEN_TTL_SECONDS,
  });
  const userRepository = createUserRepository(pool);
  const roleRepository = createRoleRepository(pool);
  const access = createAccessRepository(pool);
  const activity = settings.OPENSEARCH_URL
    ? createActivityRepository(
        settings.OPENSEARCH_URL,
        settings.INDEX_USER_ACTIVITY_LOG,
        settings.OPENSEARCH_USERNAME && settings.OPENSEARCH_PASSWORD
          ? { username: settings.OPENSEARCH_USERNAME, password: settings.OPENSEARCH_PASSWORD }
          : undefined,
        searchLayout(settings),
      )
    : undefined;
  const photoStore = settings.S3_BUCKET
    ? createObjectStore(settings, settings.S3_BUCKET)
    : undefined;
  if (!photoStore) logger.warn('S3_BUCKET is not set: profile photos are off');
  if (!activity) logger.warn('OPENSEARCH_URL is not set: user actions are not logged');

  const mailer = createMailer({
    host: settings.SMTP_HOST,
    port: settings.SMTP_PORT,
    secure: settings.SMTP_SECURE,
    user: settings.SMTP_USER,
    password: settings.SMTP_PASSWORD,
    from: settings.MAIL_FROM,
  });
  const resetTokens = createResetTokenStore(redis, settings.RESET_TOKEN_TTL_SECONDS);
  const emailChange = createEmailChange({
    users: userRepository,
    tokens: createResetTokenStore(
      redis,
      settings.EMAIL_VERIFICATION_TTL_SECONDS,
      'verify:email-change',
    ),
    resetLinks: resetTokens,
    mailer,
    logger,
    frontendUrl: settings.FRONTEND_URL,
    resendSeconds: settings.VERIFICATION_RESEND_SECONDS,
  });
  const emailVerification = createEmailVerification({
    users: userRepository,
    tokens: createResetTokenStore(redis, settings.EMAIL_VERIFICATION_TTL_SECONDS, 'verify:email'),
    license,
    roleData,
    mailer,
    logger,
    frontendUrl: settings.FRONTEND_URL,
    resendSeconds: settings.VERIFICATION_RESEND_SECONDS,
    emailChange,
  });
  if (settings.REGISTRATION_ENABLED && !settings.SMTP_HOST) {
    logger.warn(
      'REGISTRATION_ENABLED without SMTP_HOST: registered accounts cannot get their verification link',
    );
  }
  const auth = {
    loginSessions: createLoginSessions({
      users: userRepository,
      sessions,
      limiter: createLoginLimiter({
        redis,
        maxAttempts: settings.LOGIN_MAX_ATTEMPTS,
        maxPerAddress: settings.LOGIN_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: settings.LOGIN_WINDOW_SECONDS,
      }),
      license,
      metrics: createAuthMetrics(metrics.registry),
      logger,
      privateKey: keys.privateKey,
      publicKey: keys.publicKey,
      accessTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
      refreshTtlSeconds: settings.REFRESH_TOKEN_TTL_SECONDS,
      passwords,
    }),
    registration: createRegistration({
      users: userRepository,
      roles: roleRepository,
      license,
      roleData,
      verification: emailVerification,
      verificationTtlSeconds: settings.EMAIL_VERIFICATION_TTL_SECONDS,
      enabled: settings.REGISTRATION_ENABLED,
      registrationRole: settings.REGISTRATION_ROLE,
      passwords,
    }),
    emailVerification,
    requestLimit: createRequestLimiter({
      redis,
      limit: settings.AUTH_RATE_LIMIT,
      windowSeconds: settings.AUTH_RATE_WINDOW_SECONDS,
    }),
    passwordReset: createPasswordReset({
      users: userRepository,
      resetTokens,
      sessions,
      mailer,
      logger,
      frontendUrl: settings.FRONTEND_URL,
      mailLimit: {
        perAccount: settings.RESET_MAILS_PER_ACCOUNT,
        windowSeconds: settings.RESET_MAIL_WINDOW_SECONDS,
      },
      passwords,
    }),
  };

  const app = createApp({
    logger,
    metrics,
    redis,
    keys,
    opaUrl: settings.URL_OPA,
    trustProxy: settings.TRUST_PROXY,
    ...(options.decide ? { decide: options.decide } : {}),
    openApiToken: settings.OPEN_API_TOKEN,
    auth,
    users: createUsers({
      users: userRepository,
      roles: roleRepository,
      sessions,
      roleData,
      userNameCopy,
      license,
      emailChange,
      passwords,
    }),
    findUser: (id) => userRepository.find(id),
    roles: createRoles(roleRepository, roleData),
    shortcuts: createShortcuts(createShortcutRepository(pool), roleRepository),
    features: createFeatures(access, roleData),
    policies: createPolicies(access, roleRepository, roleData),
    policyData: createPolicyData(createPolicyDataRepository(pool)),
    explanations: createDecisionExplanation({
      findUser: (id) => userRepository.find(id),
      explain: opaExplainClient(settings.URL_OPA),
    }),
    time: timestampFormatter(settings.APP_TIMEZONE),
    photos: createProfilePhotos(photoStore, userRepository, logger),
    photoMaxBytes: settings.PHOTO_MAX_BYTES,
    activityLog: createActivityLog({
      repository: activity,
      logger,
      registry: metrics.registry,
      // Calls with an app key are a program's, not a user's action.
      ignore: (route) => route.path.startsWith('/open-api/'),
    }),
    activitySearch: createActivitySearch(activity),
    readiness: {
      postgres: () => pool.query('select 1'),
      redis: () => redis.ping(),
      ...(activity ? { opensearch: () => activity.ping() } : {}),
    },
  });

  return {
    app,
    activity,
    keys,
    outbox,
    syncTrigger: { idle: () => outbox?.drained().catch(() => undefined) ?? Promise.resolve() },
    userNameCopy,
    async start() {
      await withStartupLock(pool, STARTUP_LOCK, async (client) => {
        const applied = await migrate(client, MIGRATIONS_DIR);
        if (applied.length > 0) logger.info({ applied }, 'migrations applied');
        return ensureFirstAdmin(
          client,
          {
            email: settings.FIRST_ADMIN_EMAIL,
            password: settings.FIRST_ADMIN_PASSWORD,
            username: settings.FIRST_ADMIN_USERNAME,
          },
          logger,
          passwords,
          outbox ? outboxRepository : undefined,
        );
      });
      await activity?.ensureIndex();
      if (activity) {
        void moveInBackground(logger, settings.LEGACY_INDEX_USER_ACTIVITY_LOG, activity.moveLegacy);
      }
      await photoStore?.ensureBucket();
      // Also sends what an earlier process left in the outbox.
      outbox?.start();
    },
    async stop() {
      await Promise.all([outbox?.stop(), userNameCopy.idle()]);
      await pool.end();
      redis.disconnect();
      await activity?.close();
      photoStore?.close();
    },
  };
}
