/** Settings of the user service: the kit's base settings plus its own (seed names kept: `URL_OPA`, `APP_TIMEZONE`). */
import {
  baseSettings,
  booleanSetting,
  httpUrl,
  optionalHttpUrl,
  idlePollSettings,
  optionalSetting,
  searchLayoutSettings,
  postgresPoolSettings,
} from '@pelita/kit';
import { z } from 'zod';
import { redisSettings } from '@pelita/kit/redis-client';

// PEM in one environment variable: `\n` escapes are accepted where real newlines cannot be set.
const pem = optionalSetting.transform((value) => value?.replace(/\\n/g, '\n'));
const seconds = z.coerce.number().int().positive();

export const settingsSchema = baseSettings
  .extend({
    DATABASE_URL: z.string().min(1),
    ...postgresPoolSettings,
    ...idlePollSettings,
    ...redisSettings,
    /**
     * Put before every Redis key this service writes or reads (sessions, refresh and reset
     * tokens, limits), so installations sharing one Redis never meet: every service checking
     * sessions (core-backend) must use the same. Empty: keys as they always were.
     */
    REDIS_KEY_PREFIX: z.string().max(100).default(''),
    /** ES256 (P-256) private key, PEM. Required unless ALLOW_EPHEMERAL_SIGNING_KEY is on. */
    JWT_PRIVATE_KEY: pem,
    /**
     * Development only: without JWT_PRIVATE_KEY, sign with a key pair made at start (tokens die
     * with the process, replicas reject each other's). Off: a missing key stops start-up, so a
     * forgotten Secret is never a silently unstable installation.
     */
    ALLOW_EPHEMERAL_SIGNING_KEY: booleanSetting.default(false),
    /** Its public key, PEM; derived from the private key when unset. */
    JWT_PUBLIC_KEY: pem,
    ACCESS_TOKEN_TTL_SECONDS: seconds.default(900),
    REFRESH_TOKEN_TTL_SECONDS: seconds.default(7 * 24 * 3600),
    RESET_TOKEN_TTL_SECONDS: seconds.default(3600),
    /** Reset e-mails one account gets per window, whatever client addresses ask (0: no limit). */
    RESET_MAILS_PER_ACCOUNT: z.coerce.number().int().min(0).default(3),
    RESET_MAIL_WINDOW_SECONDS: seconds.default(3600),
    /** Lifetime of the link that verifies a self-registered account's e-mail address. */
    EMAIL_VERIFICATION_TTL_SECONDS: seconds.default(24 * 3600),
    /** At most one verification e-mail per account this often (registration's included; 0: no limit). */
    VERIFICATION_RESEND_SECONDS: z.coerce.number().int().min(0).default(60),
    /** Failed logins of one account before each further try waits 1, 2, 4, ... seconds. */
    LOGIN_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
    /** Failed logins from one client address per window (any accounts) before 429. */
    LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(50),
    LOGIN_WINDOW_SECONDS: seconds.default(900),
    /** Calls of register, forgot-password, reset-password and refresh per client address per window. */
    AUTH_RATE_LIMIT: z.coerce.number().int().positive().default(30),
    AUTH_RATE_WINDOW_SECONDS: seconds.default(60),
    /**
     * Proxies in front of the service whose X-Forwarded-For is believed (express's `trust proxy`
     * hop count): 1 behind one ingress. 0: the socket's address is the client's.
     */
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    URL_OPA: httpUrl.default('http://127.0.0.1:8181'),
    /** Policy-sync base URL; unset: no sync is triggered (logged once at start). */
    POLICY_SYNC_URL: optionalHttpUrl,
    /** Sent as `Authorization: Bearer` to policy-sync (its `SYNC_SERVICE_TOKEN`). */
    POLICY_SYNC_TOKEN: optionalSetting,
    /** The outbox is looked at this often besides the wake-up of a change made here. */
    POLICY_SYNC_POLL_MS: z.coerce.number().int().positive().default(1000),
    /**
     * Longest pause between two calls for an unconfirmed change (from 100 ms, doubling): short,
     * so a change reaches OPA within a fraction of a second of policy-sync coming back.
     */
    POLICY_SYNC_RETRY_MAX_MS: z.coerce.number().int().positive().default(500),
    POLICY_SYNC_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
    /** When set, `/open-api/*` require `Authorization: Bearer <token>` (policy-sync's `USER_SERVICE_TOKEN`). */
    OPEN_API_TOKEN: optionalSetting,
    APP_TIMEZONE: z
      .string()
      .default('UTC')
      .refine((zone) => isTimeZone(zone), 'not an IANA time zone'),
    FRONTEND_URL: httpUrl.default('http://localhost:8080'),
    SMTP_HOST: optionalSetting,
    SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
    /** Implicit TLS (port 465); `false`: STARTTLS when the server offers it. */
    SMTP_SECURE: booleanSetting.default(false),
    SMTP_USER: optionalSetting,
    SMTP_PASSWORD: optionalSetting,
    MAIL_FROM: z.string().default('Pelita <no-reply@pelita.local>'),
    /** OpenSearch of the user activity log; unset: no activity log (the query endpoint answers 503). */
    OPENSEARCH_URL: optionalHttpUrl,
    /** Basic credentials of a secured OpenSearch; both or neither. */
    OPENSEARCH_USERNAME: optionalSetting,
    OPENSEARCH_PASSWORD: optionalSetting,
    INDEX_USER_ACTIVITY_LOG: z.string().min(1).default('user-activity-log'),
    /** Whether the activity log's index is shared with other installs; its shards and replicas. */
    ...searchLayoutSettings,
    /** The install's own activity log index before it shared one: moved at start, then deleted. */
    LEGACY_INDEX_USER_ACTIVITY_LOG: optionalSetting,
    /** Core backend; after each user update its name is copied there. Unset: skipped. */
    CORE_BACKEND_URL: optionalHttpUrl,
    /** Sent as `Authorization: Bearer` to the core backend when set. */
    CORE_BACKEND_TOKEN: optionalSetting,
    /** License service; unset: no license validation (warned at start). */
    LICENSE_API_URL: optionalHttpUrl,
    /** This installation's client id at the license service (`/api/licenses/{id_client}`). */
    LICENSE_CLIENT_ID: optionalSetting,
    /** Basic credentials of a license-service dashboard account. */
    LICENSE_API_USERNAME: optionalSetting,
    LICENSE_API_PASSWORD: optionalSetting,
    /** How long a license check waits for the license service's answer (then 503, fail closed). */
    LICENSE_API_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
    /** S3 of profile photos; photos are off (503) while S3_BUCKET is unset. */
    S3_ENDPOINT: optionalHttpUrl,
    S3_REGION: z.string().default('us-east-1'),
    S3_ACCESS_KEY: optionalSetting,
    S3_SECRET_KEY: optionalSetting,
    S3_BUCKET: optionalSetting,
    /** Path-style bucket addressing (MinIO); `false` for virtual-hosted AWS buckets. */
    S3_FORCE_PATH_STYLE: booleanSetting.default(true),
    PHOTO_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(2 * 1024 * 1024),
    /**
     * Self-registration (`POST /auth/register`). Off by default: accounts are made by
     * administrators unless an install opens sign-up on purpose (registered accounts take
     * license seats).
     */
    REGISTRATION_ENABLED: booleanSetting.default(false),
    REGISTRATION_ROLE: z.string().min(1).default('user'),
    FIRST_ADMIN_EMAIL: optionalSetting,
    FIRST_ADMIN_PASSWORD: optionalSetting,
    FIRST_ADMIN_USERNAME: z.string().min(1).default('admin'),
  })
  .superRefine((settings, ctx) => {
    if (!settings.JWT_PRIVATE_KEY && !settings.ALLOW_EPHEMERAL_SIGNING_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_PRIVATE_KEY'],
        message:
          'required: the key that signs access tokens (for development only, ALLOW_EPHEMERAL_SIGNING_KEY=true signs with a key made at start)',
      });
    }
    // The license settings go together: a URL without its client and account is a typo, not "off".
    if (!settings.LICENSE_API_URL) return;
    for (const name of [
      'LICENSE_CLIENT_ID',
      'LICENSE_API_USERNAME',
      'LICENSE_API_PASSWORD',
    ] as const) {
      if (!settings[name]) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'required when LICENSE_API_URL is set',
        });
      }
    }
  });

export type Settings = z.infer<typeof settingsSchema>;

/** The license service's settings, when validation is on (the schema refuses a partial set). */
export function licenseSettings(settings: Settings) {
  const { LICENSE_API_URL, LICENSE_CLIENT_ID, LICENSE_API_USERNAME, LICENSE_API_PASSWORD } =
    settings;
  if (!LICENSE_API_URL || !LICENSE_CLIENT_ID || !LICENSE_API_USERNAME || !LICENSE_API_PASSWORD) {
    return undefined;
  }
  return {
    baseUrl: LICENSE_API_URL,
    clientId: LICENSE_CLIENT_ID,
    username: LICENSE_API_USERNAME,
    password: LICENSE_API_PASSWORD,
    timeoutMs: settings.LICENSE_API_TIMEOUT_MS,
  };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
