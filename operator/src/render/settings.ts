/**
 * Each service's settings derived from the install: non-secret values for its ConfigMap and
 * Secret-backed env vars. Names follow the services' own config schemas (services/<name>/src/config.ts);
 * for services not built yet the names are provisional (see operator/README.md).
 */
import type { V1EnvVar } from '@kubernetes/client-node';
import type { PlatformInstall, SecretKeyRef, ServiceName } from '../crd/platform-install';
import { childName } from './meta';

export const HTTP_PORT = 3000;
export const POLICY_SYNC_PORT = 3666;
export const OPA_PORT = 8181;

export function servicePort(service: ServiceName): number {
  return service === 'policy-sync' ? POLICY_SYNC_PORT : HTTP_PORT;
}

export interface ServiceSettingsOut {
  /** Non-secret settings: the ConfigMap's data, loaded with envFrom. */
  config: Record<string, string>;
  /** Secret references and values that expand them (`$(VAR)`); set as container env. */
  env: V1EnvVar[];
}

function fromSecret(name: string, ref: SecretKeyRef | undefined): V1EnvVar[] {
  return ref ? [{ name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } }] : [];
}

function internalUrl(install: PlatformInstall, service: ServiceName): string {
  return `http://${childName(install, service)}:${servicePort(service)}`;
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

/** Adds the dependency settings a service uses; returns env entries for their credentials. */
function dependencySettings(
  install: PlatformInstall,
  uses: ReadonlyArray<'postgres' | 'redis' | 'opensearch' | 's3' | 'llm' | 'smtp' | 'license'>,
  config: Record<string, string>,
): V1EnvVar[] {
  const deps = install.spec.dependencies;
  const env: V1EnvVar[] = [];
  for (const use of uses) {
    if (use === 'postgres' && deps.postgres) {
      config.DATABASE_URL = deps.postgres.url;
      // node-postgres reads PGUSER/PGPASSWORD when the URL carries no credentials.
      env.push(...fromSecret('PGUSER', deps.postgres.usernameSecretRef));
      env.push(...fromSecret('PGPASSWORD', deps.postgres.passwordSecretRef));
    }
    if (use === 'redis' && deps.redis) {
      if (deps.redis.passwordSecretRef) {
        // envFrom values are not expanded, so the URL with the password goes into env.
        env.push(...fromSecret('REDIS_PASSWORD', deps.redis.passwordSecretRef));
        env.push({
          name: 'REDIS_URL',
          value: deps.redis.url.replace('://', '://:$(REDIS_PASSWORD)@'),
        });
      } else {
        config.REDIS_URL = deps.redis.url;
      }
    }
    if (use === 'opensearch' && deps.opensearch) {
      config.OPENSEARCH_URL = deps.opensearch.url;
      env.push(...fromSecret('OPENSEARCH_USERNAME', deps.opensearch.usernameSecretRef));
      env.push(...fromSecret('OPENSEARCH_PASSWORD', deps.opensearch.passwordSecretRef));
    }
    if (use === 's3' && deps.s3) {
      config.S3_ENDPOINT = deps.s3.url;
      config.S3_REGION = deps.s3.region;
      config.S3_BUCKET = deps.s3.bucket;
      config.S3_FORCE_PATH_STYLE = String(deps.s3.forcePathStyle);
      env.push(...fromSecret('S3_ACCESS_KEY', deps.s3.accessKeySecretRef));
      env.push(...fromSecret('S3_SECRET_KEY', deps.s3.secretKeySecretRef));
    }
    if (use === 'smtp' && deps.smtp) {
      const smtp = smtpParts(deps.smtp.url);
      config.SMTP_HOST = smtp.host;
      config.SMTP_PORT = smtp.port;
      config.SMTP_SECURE = smtp.secure;
      config.MAIL_FROM = deps.smtp.from;
      env.push(...fromSecret('SMTP_USER', deps.smtp.usernameSecretRef));
      env.push(...fromSecret('SMTP_PASSWORD', deps.smtp.passwordSecretRef));
    }
    if (use === 'license') {
      const license = install.spec.license;
      config.LICENSE_API_URL =
        deps.licenseService?.url ??
        (install.spec.services['license-service'].enabled
          ? internalUrl(install, 'license-service')
          : license.apiUrl);
      config.LICENSE_CLIENT_ID = license.clientId;
      const secret = license.credentialsSecretRef.name;
      env.push(...fromSecret('LICENSE_API_USERNAME', { name: secret, key: 'username' }));
      env.push(...fromSecret('LICENSE_API_PASSWORD', { name: secret, key: 'password' }));
    }
    if (use === 'llm' && deps.llm) {
      config.BASE_URL_LOCAL = deps.llm.url;
      config.MODEL_LOCAL = deps.llm.model;
      env.push(...fromSecret('API_KEY_LOCAL', deps.llm.apiKeySecretRef));
    }
  }
  return env;
}

export function serviceSettings(
  install: PlatformInstall,
  service: ServiceName,
): ServiceSettingsOut {
  const { observability } = install.spec;
  const config: Record<string, string> = {
    LOG_LEVEL: observability.logLevel,
    OTEL_SERVICE_NAME: service,
  };
  if (service === 'policy-sync') config.NODE_PORT = String(POLICY_SYNC_PORT);
  else config.PORT = String(HTTP_PORT);
  if (observability.otlpEndpoint) config.OTEL_EXPORTER_OTLP_ENDPOINT = observability.otlpEndpoint;
  const url = (s: ServiceName) => internalUrl(install, s);
  const opaUrl = `http://${childName(install, 'policy-sync')}:${OPA_PORT}`;
  let env: V1EnvVar[] = [];

  switch (service) {
    case 'http-proxy':
    case 'db-proxy':
    case 'office-converter':
    case 'ocr-engine':
      break;
    case 'user-service':
      Object.assign(config, {
        URL_OPA: opaUrl,
        POLICY_SYNC_URL: url('policy-sync'),
        CORE_BACKEND_URL: url('core-backend'),
      });
      env = dependencySettings(
        install,
        ['postgres', 'redis', 'opensearch', 's3', 'smtp', 'license'],
        config,
      );
      break;
    case 'policy-sync':
      Object.assign(config, {
        URL_USER: url('user-service'),
        URL_OPA: `http://127.0.0.1:${OPA_PORT}`,
        POLICY_DATA_FILE: '/share/data.json',
      });
      env = dependencySettings(install, ['redis'], config);
      break;
    case 'license-service':
      env = dependencySettings(install, ['postgres'], config);
      break;
    case 'core-backend':
      Object.assign(config, {
        URL_USER: url('user-service'),
        URL_OPA: opaUrl,
        URL_DB_PROXY: url('db-proxy'),
        URL_HTTP_PROXY: url('http-proxy'),
        URL_OCR: url('ocr-service'),
        URL_SUMMARIZER: url('summarizer'),
      });
      env = dependencySettings(
        install,
        ['postgres', 'redis', 'opensearch', 'llm', 'license'],
        config,
      );
      break;
    case 'ocr-service':
      env = dependencySettings(install, ['redis', 'opensearch', 's3'], config);
      break;
    case 'ocr-worker': {
      const engines = install.spec.dependencies.ocrEngines;
      config.URL_CONVERTER = url('office-converter');
      const local =
        engines.local?.url ??
        (install.spec.services['ocr-engine'].enabled ? url('ocr-engine') : undefined);
      if (local) config.OCR_ENGINE_LOCAL_URL = local;
      if (engines.cloud) config.OCR_ENGINE_CLOUD_URL = engines.cloud.url;
      config.URL_SUMMARIZER = url('summarizer');
      env = [
        ...dependencySettings(install, ['redis', 'opensearch', 's3'], config),
        ...fromSecret('OCR_ENGINE_CLOUD_API_KEY', engines.cloud?.apiKeySecretRef),
      ];
      break;
    }
    case 'summarizer':
      config.TEMP_DIR = '/tmp';
      env = dependencySettings(install, ['llm'], config);
      break;
  }
  return { config, env };
}
