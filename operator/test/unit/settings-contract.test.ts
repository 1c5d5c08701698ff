/**
 * The settings contract between the operator and the services: every service of a full install
 * is rendered, and its environment parsed with that service's own settings schema. A rendered
 * name the service does not read fails (zod would drop it silently, so a rename would fall back
 * to a default), and so does a required setting the operator does not render.
 */
import { settingsSchema as coreBackend } from '@pelita/core-backend';
import { settingsSchema as dbProxy } from '@pelita/db-proxy';
import { settingsSchema as httpProxy } from '@pelita/http-proxy';
import { settingsSchema as licenseService } from '@pelita/license-service';
import { settingsSchema as ocrEngine } from '@pelita/ocr-engine';
import { settingsSchema as ocrService } from '@pelita/ocr-service';
import { settingsSchema as officeConverter } from '@pelita/office-converter';
import { settingsSchema as policySync } from '@pelita/policy-sync';
import { settingsSchema as summarizer } from '@pelita/summarizer';
import { settingsSchema as userService } from '@pelita/user-service';
import type { V1Container } from '@kubernetes/client-node';
import { z } from 'zod';
import { generatePlatformKeys } from '../../src/platform-keys';
import { renderConfigMap, renderWorkload } from '../../src/render';
import { platformSecretName } from '../../src/render/platform-secret';
import { CATALOG, SERVICE_NAMES, type ServiceName } from '../../src/service-catalog';
import { allEnabled, makeInstall } from './fixtures';

const SCHEMAS: Partial<Record<ServiceName, z.ZodType>> = {
  'http-proxy': httpProxy,
  'db-proxy': dbProxy,
  'user-service': userService,
  'policy-sync': policySync,
  'license-service': licenseService,
  summarizer,
  'ocr-engine': ocrEngine,
  'office-converter': officeConverter,
  // One schema, two entry points: the API (`dist/main.js`) and the worker (`dist/worker.js`).
  'ocr-service': ocrService,
  'ocr-worker': ocrService,
  'core-backend': coreBackend,
};

/** The platform Secret as the operator generates it: its values must parse in every service. */
const PLATFORM_KEYS = generatePlatformKeys();

/** Read by libraries, not by the settings schema. */
const READ_OUTSIDE_SCHEMA: Record<string, string> = {
  PGUSER: 'node-postgres, when DATABASE_URL carries no credentials',
  PGPASSWORD: 'node-postgres, when DATABASE_URL carries no credentials',
  OTEL_SERVICE_NAME: "the kit's tracing",
  OTEL_EXPORTER_OTLP_ENDPOINT: "the kit's tracing",
};

/** The names a settings schema reads: its object's keys, under any transform (policy-sync's). */
export function settingNames(schema: z.ZodType): string[] {
  let node: z.ZodType = schema;
  while (node instanceof z.ZodPipe) node = node.in as z.ZodType;
  if (!(node instanceof z.ZodObject)) throw new Error('a settings schema is an object schema');
  return Object.keys(node.shape);
}

/** Rendered names the schema does not read. */
function unread(rendered: Record<string, string>, schema: z.ZodType): string[] {
  const read = new Set([...settingNames(schema), ...Object.keys(READ_OUTSIDE_SCHEMA)]);
  return Object.keys(rendered).filter((name) => !read.has(name));
}

const ref = (name: string, key: string) => ({ name, key });
const fullInstall = makeInstall({
  services: allEnabled,
  bootstrapAdmin: { secretRef: { name: 'acme-admin' } },
  databases: { allowedHosts: ['10.20.0.0/16', 'db.acme.internal', '*.rds.amazonaws.com'] },
  apis: { allowedTargets: ['10.30.0.0/16', 'fd00::/8', 'billing.acme.internal'] },
  publicUrl: 'https://acme.example.com',
  observability: { otlpEndpoint: 'http://otel.observability:4318', logLevel: 'debug' },
  dependencies: {
    postgres: {
      url: 'postgres://pg.db:5432/pelita',
      usernameSecretRef: ref('deps', 'pg-user'),
      passwordSecretRef: ref('deps', 'pg-password'),
    },
    redis: { url: 'redis://redis.db:6379/0', passwordSecretRef: ref('deps', 'redis-password') },
    opensearch: {
      url: 'https://opensearch.db:9200',
      usernameSecretRef: ref('deps', 'os-user'),
      passwordSecretRef: ref('deps', 'os-password'),
    },
    s3: {
      url: 'https://s3.example.com',
      bucket: 'acme',
      accessKeySecretRef: ref('deps', 's3-id'),
      secretKeySecretRef: ref('deps', 's3-secret'),
      publicUrl: 'https://files.acme.example.com/acme',
    },
    llm: { url: 'http://llm:8080/v1', model: 'gpt-x', apiKeySecretRef: ref('deps', 'llm-key') },
    smtp: {
      url: 'smtps://mail.example.com',
      from: 'no-reply@example.com',
      usernameSecretRef: ref('deps', 'smtp-user'),
      passwordSecretRef: ref('deps', 'smtp-password'),
    },
    ocrEngines: { cloud: { url: 'https://ocr.example.com', apiKeySecretRef: ref('deps', 'ocr') } },
  },
});

fullInstall.platformKeys = { jwtPublicKey: PLATFORM_KEYS['jwt-public-key'] };

/** A key the operator generates; one it does not is a pod that never starts. */
function platformKey(key: string): string {
  const value = PLATFORM_KEYS[key];
  if (value === undefined) throw new Error(`the generated platform Secret has no key ${key}`);
  return value;
}

/**
 * The environment a pod of `service` starts with: its ConfigMap, then its env (the platform
 * Secret's keys as generated, other Secrets as placeholders).
 */
function renderedEnvironment(service: ServiceName): Record<string, string> {
  const workload = renderWorkload(fullInstall, service);
  const container = workload?.spec?.template.spec?.containers[0] as V1Container;
  const environment: Record<string, string> = { ...renderConfigMap(fullInstall, service)?.data };
  for (const entry of container.env ?? []) {
    const secret = entry.valueFrom?.secretKeyRef;
    environment[entry.name] = !secret
      ? (entry.value ?? '')
      : secret.name === platformSecretName(fullInstall)
        ? platformKey(secret.key)
        : `secret-${secret.name}-${secret.key}`;
  }
  return environment;
}

describe('the settings contract', () => {
  it('has a settings schema for every service that is built', () => {
    const built = SERVICE_NAMES.filter((service) => CATALOG[service].built);
    expect(built.filter((service) => !SCHEMAS[service])).toEqual([]);
  });

  it.each(Object.entries(SCHEMAS))(
    '%s reads every setting it is given, and starts with them',
    (service, schema) => {
      const environment = renderedEnvironment(service as ServiceName);
      expect(unread(environment, schema)).toEqual([]);
      const parsed = schema.safeParse(environment);
      expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    },
  );

  it('fails on a rendered name the service does not read', () => {
    const schema = z.object({ PORT: z.string() }).transform((s) => s);
    expect(unread({ PORT: '1', OPENSEARCH_USERNAME: 'x' }, schema)).toEqual([
      'OPENSEARCH_USERNAME',
    ]);
  });

  it('gives policy-sync its port as PORT, read through its transform', () => {
    expect(settingNames(policySync)).toEqual(expect.arrayContaining(['PORT', 'URL_USER']));
    const parsed = policySync.parse(renderedEnvironment('policy-sync')) as { PORT: number };
    expect(parsed.PORT).toBe(CATALOG['policy-sync'].port);
  });
});
