/**
 * Settings from a secret store (seed 002 B: a secret manager that `DISABLE_INFISICAL=1` switches
 * off). When `INFISICAL_URL` and a machine identity are set and the switch is not `1`, a service
 * reads the secrets of its project / environment / path before it parses its settings, and each
 * secret is the setting of the same name. A variable of the environment wins where both are set
 * (an empty one counts as unset), so an operator can always override the store.
 *
 * Start-up fails with a clear message — never a value — when the store is configured but cannot
 * be read. Afterwards the values are read again every `INFISICAL_REFRESH_SECONDS`; a failed
 * refresh keeps the last good values and is logged, and a refresh whose values would not parse
 * as settings is refused the same way. Services that can use new values at run time read
 * `latest()`; the others take them at their next start (the changed names are logged).
 */
import { z } from 'zod';
import { ConfigError, loadConfig, optionalHttpUrl, optionalSetting } from '../config';
import { errorMessage } from '../error-message';
import type { Logger } from '../logger';
import { createInfisicalClient, type InfisicalClient, type SecretScope } from './infisical-client';

export const secretStoreSettings = z
  .object({
    INFISICAL_URL: optionalHttpUrl,
    INFISICAL_CLIENT_ID: optionalSetting,
    INFISICAL_CLIENT_SECRET: optionalSetting,
    INFISICAL_PROJECT_ID: optionalSetting,
    INFISICAL_ENVIRONMENT: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.string().default('prod'),
    ),
    INFISICAL_SECRET_PATH: z.preprocess((v) => (v === '' ? undefined : v), z.string().default('/')),
    /** 0: read once, at start. */
    INFISICAL_REFRESH_SECONDS: z.coerce.number().int().min(0).default(300),
    /** The seed's switch: `1` turns the store off, whatever else is set. */
    DISABLE_INFISICAL: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.enum(['0', '1']).default('0'),
    ),
  })
  .refine(
    (s) =>
      !s.INFISICAL_URL ||
      (s.INFISICAL_CLIENT_ID !== undefined &&
        s.INFISICAL_CLIENT_SECRET !== undefined &&
        s.INFISICAL_PROJECT_ID !== undefined),
    {
      message:
        'INFISICAL_URL needs INFISICAL_CLIENT_ID, INFISICAL_CLIENT_SECRET and INFISICAL_PROJECT_ID',
    },
  );

/** The environment with the store's values under it: a non-empty variable wins. */
export function withStoreValues(
  env: NodeJS.ProcessEnv,
  values: Record<string, string>,
): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...values };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') merged[name] = value;
    else if (!(name in merged)) merged[name] = value;
  }
  return merged;
}

export interface SettingsSource<S> {
  /** The settings parsed at start. */
  readonly settings: S;
  /** The settings as of the last good read of the store (the start's without a store). */
  latest(): S;
  /** Reads the store every INFISICAL_REFRESH_SECONDS from now on (nothing without a store). */
  startRefresh(logger: Logger): void;
  stop(): void;
  /** One refresh now (what the timer does); false when it failed or was refused. */
  refresh(logger: Logger): Promise<boolean>;
}

export interface SettingsSourceOptions {
  env?: NodeJS.ProcessEnv;
  /** For tests: the client to read with (default: Infisical's, from the settings). */
  client?: InfisicalClient;
}

/**
 * Parses `schema` from the environment and, when configured and not switched off, the secret
 * store. Throws a ConfigError naming what failed (never a value).
 */
export async function openSettingsSource<S extends z.ZodType>(
  schema: S,
  options: SettingsSourceOptions = {},
): Promise<SettingsSource<z.infer<S>>> {
  const env = options.env ?? process.env;
  const store = loadConfig(secretStoreSettings, env);
  const enabled = store.INFISICAL_URL !== undefined && store.DISABLE_INFISICAL !== '1';
  if (!enabled) {
    const settings = loadConfig(schema, env);
    return {
      settings,
      latest: () => settings,
      startRefresh: () => undefined,
      stop: () => undefined,
      refresh: () => Promise.resolve(true),
    };
  }
  const client =
    options.client ??
    createInfisicalClient({
      baseUrl: store.INFISICAL_URL!,
      clientId: store.INFISICAL_CLIENT_ID!,
      clientSecret: store.INFISICAL_CLIENT_SECRET!,
    });
  const scope: SecretScope = {
    projectId: store.INFISICAL_PROJECT_ID!,
    environment: store.INFISICAL_ENVIRONMENT,
    secretPath: store.INFISICAL_SECRET_PATH,
  };
  const where = `${store.INFISICAL_URL} (project ${scope.projectId}, environment ${scope.environment}, path ${scope.secretPath})`;
  const read = async () =>
    Object.fromEntries((await client.listSecrets(scope)).map((s) => [s.key, s.value]));

  let values: Record<string, string>;
  try {
    values = await read();
  } catch (err) {
    throw new ConfigError(
      `The secret store at ${where} could not be read: ${errorMessage(err)}. Set DISABLE_INFISICAL=1 to start without it.`,
    );
  }
  const settings = loadConfig(schema, withStoreValues(env, values));
  let current = settings;
  let timer: NodeJS.Timeout | undefined;

  async function refresh(logger: Logger): Promise<boolean> {
    let next: Record<string, string>;
    try {
      next = await read();
    } catch (err) {
      logger.warn(
        { err: errorMessage(err) },
        `the secret store at ${where} could not be read: the last values stay`,
      );
      return false;
    }
    const changed = [...new Set([...Object.keys(values), ...Object.keys(next)])].filter(
      (key) => values[key] !== next[key],
    );
    if (changed.length === 0) return true;
    try {
      current = loadConfig(schema, withStoreValues(env, next));
    } catch (err) {
      logger.error(
        { err: errorMessage(err) },
        'the secret store holds settings that do not parse: the last values stay',
      );
      return false;
    }
    values = next;
    // Names only: the values are secrets.
    logger.info(
      { changed: changed.sort() },
      'the secret store changed; settings read at run time use the new values now, the others at the next start',
    );
    return true;
  }

  return {
    settings,
    latest: () => current,
    refresh,
    startRefresh(logger) {
      if (store.INFISICAL_REFRESH_SECONDS === 0 || timer) return;
      let running = false;
      timer = setInterval(() => {
        // A slow store must not pile reads up.
        if (running) return;
        running = true;
        void refresh(logger).finally(() => (running = false));
      }, store.INFISICAL_REFRESH_SECONDS * 1000);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
