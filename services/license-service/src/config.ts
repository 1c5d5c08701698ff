/** The license service's settings (environment variables), validated at start-up. */
import {
  baseSettings,
  booleanSetting,
  httpUrl,
  optionalSetting,
  postgresPoolSettings,
} from '@pelita/kit';
import { z } from 'zod';

/** 32 bytes for AES-256-GCM, as 64 hex digits or base64 (what `openssl rand -base64 32` prints). */
const encryptionKey = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z
    .string()
    .transform((value) =>
      /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64'),
    )
    .refine((key) => key.length === 32, 'must be 32 bytes: 64 hex digits or base64 of 32 bytes')
    .optional(),
);

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const settingsSchema = baseSettings
  .extend({
    DATABASE_URL: z.string().min(1),
    ...postgresPoolSettings,
    /**
     * The first dashboard account (role `super-admin`), created at start when no account exists;
     * it enrols its TOTP second factor at its first login.
     */
    ADMIN_EMAIL: optionalSetting,
    ADMIN_PASSWORD: optionalSetting,
    ADMIN_NAME: optionalSetting,
    /** A dashboard session ends after this long without a request… */
    SESSION_IDLE_MINUTES: positiveInt(30),
    /** …and this long after its login, whatever happens. */
    SESSION_MAX_HOURS: positiveInt(12),
    /**
     * Secure cookies (`__Host-` prefix, HTTPS only). Browsers accept them from http://localhost
     * and http://127.0.0.1 too, so only a plain-HTTP deployment elsewhere needs false.
     */
    COOKIE_SECURE: booleanSetting.default(true),
    /**
     * Consecutive wrong passwords of one account before it is locked for a while; the dashboard
     * and the license API count and lock apart.
     */
    LOGIN_MAX_ATTEMPTS: positiveInt(5),
    LOGIN_LOCK_MINUTES: positiveInt(15),
    /**
     * Failed sign-ins from one client address (per surface, per replica) in a window before it is
     * answered 429 without any password being hashed.
     */
    LOGIN_ADDRESS_MAX_FAILURES: positiveInt(20),
    LOGIN_ADDRESS_WINDOW_MINUTES: positiveInt(15),
    /** Password hashes (scrypt, 128 MiB each) running at once in one replica… */
    PASSWORD_CHECK_CONCURRENCY: positiveInt(2),
    /** …and how long a check waits for its turn before it is answered 503. */
    PASSWORD_CHECK_MAX_WAIT_MS: positiveInt(2000),
    /**
     * Proxies in front of the service whose X-Forwarded-For is believed (express's `trust proxy`
     * hop count): the client address the throttle counts. 0: the TCP peer.
     */
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    /** Wrong TOTP codes in one login before it must start again with the password. */
    TOTP_MAX_ATTEMPTS: positiveInt(5),
    /**
     * Wrong second-factor codes of one account, across logins, before its dashboard sign-in is
     * locked for LOGIN_LOCK_MINUTES; only a completed sign-in (password and code) resets the count.
     */
    SECOND_FACTOR_MAX_FAILURES: positiveInt(10),
    /** The issuer shown in authenticator apps. */
    TOTP_ISSUER: z.string().min(1).default('Pelita License'),
    /**
     * Seals the credentials stored with mappings (client secret, trigger token); unset: they are
     * stored as they are. The same form as core-backend's ENCRYPTION_KEY.
     */
    ENCRYPTION_KEY: encryptionKey,
    /** The secret store the environment page edits (mappings carry their own credentials). */
    // Not INFISICAL_URL: that name is the kit's, for the store a service reads its own settings
    // from (issue 21); the store the mappings point into may be another one.
    MAPPINGS_INFISICAL_URL: httpUrl.default('https://app.infisical.com'),
    /** GitLab whose pipelines a `frontend` mapping triggers after its secrets are saved. */
    GITLAB_URL: httpUrl.default('https://gitlab.com'),
    /** A token allowed to create pipeline trigger tokens in GITLAB_PROJECT_ID. */
    GITLAB_TOKEN: optionalSetting,
    GITLAB_PROJECT_ID: optionalSetting,
    /** Telegram bot of the login notifications; unset: no notification. */
    TELEGRAM_BOT_TOKEN: optionalSetting,
    TELEGRAM_CHAT_ID: optionalSetting,
    TELEGRAM_API_URL: httpUrl.default('https://api.telegram.org'),
    /** Time-out of each call to Infisical, GitLab and Telegram. */
    OUTBOUND_TIMEOUT_MS: positiveInt(10_000),
  })
  .superRefine((settings, ctx) => {
    const pairs: Array<[keyof typeof settings, keyof typeof settings]> = [
      ['ADMIN_EMAIL', 'ADMIN_PASSWORD'],
      ['GITLAB_TOKEN', 'GITLAB_PROJECT_ID'],
      ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_CHAT_ID'],
    ];
    for (const [a, b] of pairs) {
      if ((settings[a] === undefined) !== (settings[b] === undefined)) {
        const missing = settings[a] === undefined ? a : b;
        ctx.addIssue({
          code: 'custom',
          path: [missing],
          message: `required together with ${missing === a ? b : a}`,
        });
      }
    }
    if (settings.ADMIN_PASSWORD !== undefined && settings.ADMIN_PASSWORD.length < 12) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_PASSWORD'], message: 'at least 12 characters' });
    }
  });

export type Settings = z.infer<typeof settingsSchema>;
