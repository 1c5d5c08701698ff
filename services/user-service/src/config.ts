/** Settings of the user service: the kit's base settings plus its own (seed names kept: `URL_OPA`, `APP_TIMEZONE`). */
import { baseSettings } from '@pelita/kit';
import { z } from 'zod';

// An empty setting counts as unset.
const optional = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));
const httpUrl = z.url({ protocol: /^https?$/ }).transform((value) => value.replace(/\/+$/, ''));
const optionalUrl = z.preprocess((value) => (value === '' ? undefined : value), httpUrl.optional());
// PEM in one environment variable: `\n` escapes are accepted where real newlines cannot be set.
const pem = optional.transform((value) => value?.replace(/\\n/g, '\n'));
const seconds = z.coerce.number().int().positive();

export const settingsSchema = baseSettings.extend({
  DATABASE_URL: z.string().min(1),
  REDIS_URL: z.string().min(1),
  /** ES256 (P-256) private key, PEM. Unset: an ephemeral pair is generated (tokens die with the process). */
  JWT_PRIVATE_KEY: pem,
  /** Its public key, PEM; derived from the private key when unset. */
  JWT_PUBLIC_KEY: pem,
  ACCESS_TOKEN_TTL_SECONDS: seconds.default(900),
  REFRESH_TOKEN_TTL_SECONDS: seconds.default(7 * 24 * 3600),
  RESET_TOKEN_TTL_SECONDS: seconds.default(3600),
  LOGIN_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  LOGIN_WINDOW_SECONDS: seconds.default(900),
  URL_OPA: httpUrl.default('http://127.0.0.1:8181'),
  /** Policy-sync base URL; unset: no sync is triggered (logged once at start). */
  POLICY_SYNC_URL: optionalUrl,
  /** Sent as `Authorization: Bearer` to policy-sync (its `SYNC_SERVICE_TOKEN`). */
  POLICY_SYNC_TOKEN: optional,
  /** When set, `/open-api/*` require `Authorization: Bearer <token>` (policy-sync's `USER_SERVICE_TOKEN`). */
  OPEN_API_TOKEN: optional,
  APP_TIMEZONE: z
    .string()
    .default('UTC')
    .refine((zone) => isTimeZone(zone), 'not an IANA time zone'),
  FRONTEND_URL: httpUrl.default('http://localhost:8080'),
  SMTP_HOST: optional,
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_SECURE: z.enum(['true', 'false']).default('false'),
  SMTP_USER: optional,
  SMTP_PASSWORD: optional,
  MAIL_FROM: z.string().default('Pelita <no-reply@pelita.local>'),
  /** OpenSearch of the user activity log; unset: no activity log (the query endpoint answers 503). */
  OPENSEARCH_URL: optionalUrl,
  INDEX_USER_ACTIVITY_LOG: z.string().min(1).default('user-activity-log'),
  /** Core backend; after each user update its name is copied there. Unset: skipped. */
  CORE_BACKEND_URL: optionalUrl,
  /** Sent as `Authorization: Bearer` to the core backend when set. */
  CORE_BACKEND_TOKEN: optional,
  /** License service; unset: no license validation (warned at start). */
  LICENSE_API_URL: optionalUrl,
  /** This installation's client id at the license service (`/api/licenses/{id_client}`). */
  LICENSE_CLIENT_ID: optional,
  /** Basic credentials of a license-service dashboard account. */
  LICENSE_API_USERNAME: optional,
  LICENSE_API_PASSWORD: optional,
  /** S3 of profile photos; photos are off (503) while S3_BUCKET is unset. */
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY: optional,
  S3_SECRET_KEY: optional,
  S3_BUCKET: optional,
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('true'),
  PHOTO_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024),
  REGISTRATION_ROLE: z.string().min(1).default('user'),
  FIRST_ADMIN_EMAIL: optional,
  FIRST_ADMIN_PASSWORD: optional,
  FIRST_ADMIN_USERNAME: z.string().min(1).default('admin'),
});

export type Settings = z.infer<typeof settingsSchema>;

/** The license settings go together: all four, or none. */
export function licenseSettings(settings: Settings) {
  const { LICENSE_API_URL, LICENSE_CLIENT_ID, LICENSE_API_USERNAME, LICENSE_API_PASSWORD } =
    settings;
  if (!LICENSE_API_URL) return undefined;
  if (!LICENSE_CLIENT_ID || !LICENSE_API_USERNAME || !LICENSE_API_PASSWORD) {
    throw new Error(
      'Invalid settings: LICENSE_API_URL needs LICENSE_CLIENT_ID, LICENSE_API_USERNAME and LICENSE_API_PASSWORD',
    );
  }
  return {
    baseUrl: LICENSE_API_URL,
    clientId: LICENSE_CLIENT_ID,
    username: LICENSE_API_USERNAME,
    password: LICENSE_API_PASSWORD,
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
