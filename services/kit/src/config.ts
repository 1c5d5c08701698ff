/** Settings come from the environment, validated by a zod schema; a bad setting stops start-up. */
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Settings every service reads; services extend this schema with their own. */
export const baseSettings = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long SIGTERM waits for in-flight requests before closing their connections. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Largest JSON or form body accepted, in bytes-format understood by body-parser (`1mb`). */
  BODY_LIMIT: z.string().default('1mb'),
});

export type BaseSettings = z.infer<typeof baseSettings>;

/**
 * Parses the environment with `schema`. The error names every bad setting and says what is
 * wrong, but never echoes the value: settings often hold credentials.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(settings)';
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid settings: ${problems.join('; ')}`);
}

export const MIB = 1024 * 1024;

/** Positive integer setting (a count, a size in bytes, a time in milliseconds) with its default. */
export const positiveInt = (fallback: number) =>
  z.coerce.number().int().positive().default(fallback);

/** Comma-separated list setting (`a, b,c`) → trimmed, non-empty entries. */
export const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0),
  );

/** Boolean setting: `true/false/1/0/yes/no`, case-insensitive. */
export const booleanSetting = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'TRUE', 'FALSE', 'True', 'False'])
  .transform((value) => ['true', '1', 'yes'].includes(value.toLowerCase()));

// Kubernetes and shells set a variable to '' as often as they leave it out: both mean unset.
const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

/** Optional string setting; empty means unset. */
export const optionalSetting = z.preprocess(emptyAsUnset, z.string().optional());

/** Optional PEM setting (a key); `\n` escapes are accepted where real newlines cannot be set. */
export const pemSetting = optionalSetting.transform((value) => value?.replace(/\\n/g, '\n'));

/**
 * An http(s) base URL without a trailing slash: callers append paths (`/v1/data`), and a
 * trailing slash would double.
 */
export const httpUrl = z
  .url({ protocol: /^https?$/ })
  .transform((value) => value.replace(/\/+$/, ''));

/** Optional {@link httpUrl}; empty means unset. */
export const optionalHttpUrl = z.preprocess(emptyAsUnset, httpUrl.optional());

/** Optional TCP port; empty means unset (coerced, it would be port 0). */
export const optionalPort = z.preprocess(
  emptyAsUnset,
  z.coerce.number().int().min(0).max(65535).optional(),
);
