/**
 * Each service's settings derived from the install: non-secret values for its ConfigMap and
 * Secret-backed env vars. What a service gets comes from its catalog entry and its own settings
 * (own-settings.ts); the names are the ones its settings schema reads
 * (test/unit/settings-contract.test.ts parses them with it).
 */
import type { V1EnvVar } from '@kubernetes/client-node';
import type { PlatformInstall, SecretKeyRef } from '../crd/platform-install';
import {
  CATALOG,
  OPA_PORT,
  tokenKey,
  type Dependency,
  type Link,
  type ServiceName,
} from '../service-catalog';
import { isEnabled } from './enabled-services';
import { childName } from './meta';
import { OWN_SETTINGS, type SettingsContext } from './own-settings';
import { platformKeyRef } from './platform-secret';

export interface ServiceSettingsOut {
  /** Non-secret settings: the ConfigMap's data, loaded with envFrom. */
  config: Record<string, string>;
  /** Settings taken from Secrets; set as container env. */
  env: V1EnvVar[];
}

function fromSecret(name: string, ref: SecretKeyRef | undefined): V1EnvVar[] {
  return ref ? [{ name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } }] : [];
}

/** `http://<install>-<service>:<port>`: the Service's cluster DNS name in the install's namespace. */
function internalUrl(install: PlatformInstall, link: Link): string {
  const port = link.port === 'opa' ? OPA_PORT : CATALOG[link.service].port;
  return `http://${childName(install, link.service)}:${port}`;
}

function smtpParts(url: string): { host: string; port: string; secure: string } {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  return {
    host: parsed.hostname,
    port: parsed.port || (secure ? '465' : '587'),
    secure: String(secure),
  };
}

/** Values and Secret-backed settings, in this order; a Secret ref left unset sets nothing. */
function settingsOut(
  config: Record<string, string>,
  secrets: Record<string, SecretKeyRef | undefined> = {},
): ServiceSettingsOut {
  return { config, env: Object.entries(secrets).flatMap(([name, ref]) => fromSecret(name, ref)) };
}

interface ServerRef {
  url: string;
  usernameSecretRef?: SecretKeyRef | undefined;
  passwordSecretRef?: SecretKeyRef | undefined;
}

/** A server reached at its URL with credentials from Secrets, under the names a service reads. */
function serverSettings(
  server: ServerRef | undefined,
  names: { url: string; username?: string; password: string },
): ServiceSettingsOut {
  if (!server) return empty();
  return settingsOut(
    { [names.url]: server.url },
    {
      ...(names.username ? { [names.username]: server.usernameSecretRef } : {}),
      [names.password]: server.passwordSecretRef,
    },
  );
}

/** The settings of one dependency, under the same names in every service that uses it. */
function dependencySettings(install: PlatformInstall, use: Dependency): ServiceSettingsOut {
  const deps = install.spec.dependencies;
  switch (use) {
    case 'postgres': {
      // node-postgres reads PGUSER/PGPASSWORD when the URL carries no credentials.
      const server = serverSettings(deps.postgres, {
        url: 'DATABASE_URL',
        username: 'PGUSER',
        password: 'PGPASSWORD',
      });
      return { ...server, config: { ...server.config, ...poolSettings(deps.postgres?.pool) } };
    }
    case 'redis':
      // The password stays a setting of its own: spliced into the URL it would need encoding,
      // which Kubernetes' $(VAR) expansion cannot do.
      return serverSettings(deps.redis, { url: 'REDIS_URL', password: 'REDIS_PASSWORD' });
    case 'opensearch':
      return serverSettings(deps.opensearch, {
        url: 'OPENSEARCH_URL',
        username: 'OPENSEARCH_USERNAME',
        password: 'OPENSEARCH_PASSWORD',
      });
    case 's3':
      return deps.s3
        ? settingsOut(
            {
              S3_ENDPOINT: deps.s3.url,
              S3_REGION: deps.s3.region,
              S3_BUCKET: deps.s3.bucket,
              S3_FORCE_PATH_STYLE: String(deps.s3.forcePathStyle),
            },
            {
              S3_ACCESS_KEY: deps.s3.accessKeySecretRef,
              S3_SECRET_KEY: deps.s3.secretKeySecretRef,
            },
          )
        : empty();
    case 'smtp': {
      if (!deps.smtp) return empty();
      const smtp = smtpParts(deps.smtp.url);
      return settingsOut(
        {
          SMTP_HOST: smtp.host,
          SMTP_PORT: smtp.port,
          SMTP_SECURE: smtp.secure,
          MAIL_FROM: deps.smtp.from,
        },
        { SMTP_USER: deps.smtp.usernameSecretRef, SMTP_PASSWORD: deps.smtp.passwordSecretRef },
      );
    }
    case 'license': {
      // The install's license binding is explicit and required: it is what the services use.
      const { license } = install.spec;
      const secret = license.credentialsSecretRef.name;
      return settingsOut(
        { LICENSE_API_URL: license.apiUrl, LICENSE_CLIENT_ID: license.clientId },
        {
          LICENSE_API_USERNAME: { name: secret, key: 'username' },
          LICENSE_API_PASSWORD: { name: secret, key: 'password' },
        },
      );
    }
    case 'llm':
      return deps.llm
        ? settingsOut(
            { BASE_URL_LOCAL: deps.llm.url, MODEL_LOCAL: deps.llm.model },
            { API_KEY_LOCAL: deps.llm.apiKeySecretRef },
          )
        : empty();
  }
}

/** Only the sizes the install sets: unset, the services' own defaults apply. */
function poolSettings(pool: { max?: number; idleTimeoutSeconds?: number } | undefined) {
  return {
    ...(pool?.max !== undefined ? { DATABASE_POOL_MAX: String(pool.max) } : {}),
    ...(pool?.idleTimeoutSeconds !== undefined
      ? { DATABASE_POOL_IDLE_MS: String(pool.idleTimeoutSeconds * 1000) }
      : {}),
  };
}

function empty(): ServiceSettingsOut {
  return { config: {}, env: [] };
}

export function serviceSettings(
  install: PlatformInstall,
  service: ServiceName,
): ServiceSettingsOut {
  const entry = CATALOG[service];
  const { observability } = install.spec;
  const config: Record<string, string> = {
    PORT: String(entry.port),
    LOG_LEVEL: observability.logLevel,
    OTEL_SERVICE_NAME: service,
  };
  if (observability.otlpEndpoint) config.OTEL_EXPORTER_OTLP_ENDPOINT = observability.otlpEndpoint;
  const env: V1EnvVar[] = [];
  for (const use of entry.uses) {
    const settings = dependencySettings(install, use);
    Object.assign(config, settings.config);
    env.push(...settings.env);
  }
  // A URL of a service that does not run would only turn into connection errors at run time.
  for (const [name, link] of Object.entries(entry.links)) {
    if (isEnabled(install, link.service)) config[name] = internalUrl(install, link);
  }
  const context: SettingsContext = {
    url: (link: Link) => internalUrl(install, link),
    jwtPublicKey: install.platformKeys?.jwtPublicKey,
  };
  const own = OWN_SETTINGS[service];
  const ownOut = settingsOut(
    own?.settings?.(install, context) ?? {},
    own?.secretSettings?.(install),
  );
  Object.assign(config, ownOut.config);
  env.push(...ownOut.env, ...platformSecretEnv(install, service));
  const store = secretStoreSettings(install);
  Object.assign(config, store.config);
  env.push(...store.env);
  return { config, env };
}

/** Infisical, for every service (the kit's runService reads it before the service's settings). */
function secretStoreSettings(install: PlatformInstall): ServiceSettingsOut {
  const store = install.spec.secretStore;
  if (!store) return empty();
  const credentials = store.credentialsSecretRef.name;
  return settingsOut(
    {
      INFISICAL_URL: store.url,
      INFISICAL_PROJECT_ID: store.projectId,
      INFISICAL_ENVIRONMENT: store.environment,
      INFISICAL_SECRET_PATH: store.path,
      INFISICAL_REFRESH_SECONDS: String(store.refreshSeconds),
    },
    {
      INFISICAL_CLIENT_ID: { name: credentials, key: 'clientId' },
      INFISICAL_CLIENT_SECRET: { name: credentials, key: 'clientSecret' },
    },
  );
}

/**
 * The keys of the platform Secret this service needs, each by `secretKeyRef`: the token it
 * checks, the tokens of the running services it calls, and its own keys. Nothing else of the
 * Secret reaches its container (the signing key stays in the user service).
 */
function platformSecretEnv(install: PlatformInstall, service: ServiceName): V1EnvVar[] {
  const entry = CATALOG[service];
  const refs: Array<[string, string]> = [
    ...(entry.acceptsToken ? [[entry.acceptsToken, tokenKey(service)] as [string, string]] : []),
    ...Object.entries(entry.presentsTokens ?? {})
      .filter(([, server]) => isEnabled(install, server))
      .map(([name, server]): [string, string] => [name, tokenKey(server)]),
    ...Object.entries(entry.platformKeys ?? {}),
  ];
  return refs.flatMap(([name, key]) => fromSecret(name, platformKeyRef(install, key)));
}
