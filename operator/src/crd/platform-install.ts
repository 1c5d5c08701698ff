/**
 * The PlatformInstall custom resource: one zod schema is the single source of the TypeScript
 * types, the defaults applied in the operator, and the CRD's OpenAPI schema (generate-crd.ts).
 */
import { z } from 'zod';

export const GROUP = 'pelita.io';
export const VERSION = 'v1alpha1';
export const KIND = 'PlatformInstall';
export const PLURAL = 'platforminstalls';
export const SINGULAR = 'platforminstall';
export const SHORT_NAMES = ['pi'];
export const API_VERSION = `${GROUP}/${VERSION}`;

/**
 * Longest install name: children are named `<install>-<service>`, and the longest derived name
 * that must be a 63-character label is the ocr-worker StatefulSet's revision-hash label value
 * `<install>-ocr-worker-<10-char hash>`.
 */
export const MAX_INSTALL_NAME_LENGTH = 40;

/** Cross-field rules: checked by zod here and by the apiserver as CEL (x-kubernetes-validations). */
export const CROSS_FIELD_RULES = {
  root: {
    rule: `self.metadata.name.size() <= ${MAX_INSTALL_NAME_LENGTH}`,
    message: `metadata.name must be at most ${MAX_INSTALL_NAME_LENGTH} characters (child names append the service name)`,
  },
  ingress: {
    // `has(self.enabled)` first: the apiserver checks the rule against the default `{}` too.
    rule: '!has(self.enabled) || !self.enabled || has(self.host)',
    message: 'ingress.host is required when ingress.enabled is true',
  },
} as const;

export const SERVICE_NAMES = [
  'http-proxy',
  'db-proxy',
  'user-service',
  'policy-sync',
  'license-service',
  'core-backend',
  'ocr-service',
  'ocr-worker',
  'office-converter',
  'ocr-engine',
  'summarizer',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

// RFC 1123 label: what Kubernetes accepts as an object name segment.
const dnsLabel = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a lowercase RFC 1123 label (a-z, 0-9, -)');
const httpUrl = z
  .string()
  .regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL')
  .describe('http:// or https:// URL');
const quantity = z
  .string()
  .regex(
    /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/,
    'must be a Kubernetes quantity (e.g. 100m, 256Mi)',
  );

export const secretKeyRefSchema = z
  .object({
    name: dnsLabel.describe('Name of a Secret in the PlatformInstall namespace.'),
    key: z.string().min(1).describe('Key inside that Secret.'),
  })
  .describe('A key of a Secret in the same namespace.');
export type SecretKeyRef = z.infer<typeof secretKeyRefSchema>;

const resourceListSchema = z.object({
  cpu: quantity.optional().describe('CPU quantity, e.g. 100m.'),
  memory: quantity.optional().describe('Memory quantity, e.g. 256Mi.'),
});

const envVarSchema = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name')
    .describe('Environment variable name.'),
  value: z.string().describe('Literal value (use the dependency Secret refs for credentials).'),
});

const serviceSettingsSchema = z.object({
  enabled: z.boolean().default(true).describe('Whether the operator runs this service.'),
  replicas: z.number().int().min(0).max(50).default(1).describe('Pod replicas (0-50).'),
  resources: z
    .object({
      requests: resourceListSchema
        .prefault({})
        .describe('Resource requests; defaults to cpu 50m, memory 128Mi when unset.'),
      limits: resourceListSchema.optional().describe('Resource limits.'),
    })
    .prefault({})
    .describe('Container resources.'),
  env: z
    .array(envVarSchema)
    .max(100)
    .default([])
    .describe('Extra environment variables, applied after the operator-derived ones.'),
});
export type ServiceSettings = z.infer<typeof serviceSettingsSchema>;

function serviceEntry(name: ServiceName) {
  return serviceSettingsSchema.prefault({}).describe(`Settings of the ${name} service.`);
}

const credentials = {
  usernameSecretRef: secretKeyRefSchema.optional().describe('Secret key holding the username.'),
  passwordSecretRef: secretKeyRefSchema.optional().describe('Secret key holding the password.'),
};

const dependenciesSchema = z.object({
  postgres: z
    .object({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// URL')
        .describe('postgres:// URL without credentials (they come from the Secret refs).'),
      ...credentials,
    })
    .optional()
    .describe('PostgreSQL used by user-service, license-service and core-backend.'),
  redis: z
    .object({
      url: z
        .string()
        .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL')
        .describe('redis:// URL.'),
      passwordSecretRef: secretKeyRefSchema.optional().describe('Secret key holding the password.'),
    })
    .optional()
    .describe('Redis for sessions, queues and sync triggers.'),
  opensearch: z
    .object({ url: httpUrl.describe('OpenSearch base URL.'), ...credentials })
    .optional()
    .describe('OpenSearch for activity logs, knowledge and OCR results.'),
  s3: z
    .object({
      url: httpUrl.describe('S3 endpoint URL.'),
      bucket: dnsLabel.describe('Bucket name.'),
      region: z.string().min(1).default('us-east-1').describe('S3 region.'),
      forcePathStyle: z.boolean().default(true).describe('Path-style addressing (MinIO).'),
      accessKeySecretRef: secretKeyRefSchema.describe('Secret key holding the access key id.'),
      secretKeySecretRef: secretKeyRefSchema.describe('Secret key holding the secret access key.'),
    })
    .optional()
    .describe('S3-compatible object storage.'),
  llm: z
    .object({
      url: httpUrl.describe('Base URL of an OpenAI-compatible chat API.'),
      model: z.string().min(1).describe('Model name sent with each request.'),
      apiKeySecretRef: secretKeyRefSchema.optional().describe('Secret key holding the API key.'),
    })
    .optional()
    .describe('The LLM used by core-backend and summarizer.'),
  ocrEngines: z
    .object({
      cloud: z
        .object({
          url: httpUrl.describe('Cloud OCR engine URL.'),
          apiKeySecretRef: secretKeyRefSchema
            .optional()
            .describe('Secret key holding the API key.'),
        })
        .optional()
        .describe('A cloud OCR engine.'),
      local: z
        .object({ url: httpUrl.describe('Local OCR engine URL.') })
        .optional()
        .describe('An external local OCR engine; when unset the in-install ocr-engine is used.'),
    })
    .prefault({})
    .describe('OCR engines the OCR worker may use.'),
  smtp: z
    .object({
      url: z
        .string()
        .regex(
          /^smtps?:\/\/[^/\s:]+(:[0-9]+)?\/?$/,
          'must be smtp://host[:port] or smtps://host[:port]',
        )
        .describe('smtp://host:port (STARTTLS) or smtps://host:port (implicit TLS).'),
      from: z.string().min(3).describe('Sender address of outgoing mail.'),
      ...credentials,
    })
    .optional()
    .describe('SMTP server for password-reset and notification mail.'),
  licenseService: z
    .object({ url: httpUrl.describe('License API base URL.'), ...credentials })
    .optional()
    .describe('An external license service; when unset the in-install license-service is used.'),
});

export const platformInstallSpecSchema = z
  .object({
    tenant: z
      .object({
        id: dnsLabel.describe('Stable tenant identifier (RFC 1123 label).'),
        displayName: z.string().min(1).max(200).describe('Human-readable tenant name.'),
      })
      .describe('Tenant identity.'),
    license: z
      .object({
        clientId: z.string().min(1).describe('License client id of this tenant.'),
        apiUrl: httpUrl.describe('License API base URL used to validate the license.'),
        credentialsSecretRef: z
          .object({ name: dnsLabel.describe('Secret with keys `username` and `password`.') })
          .describe('Basic-auth credentials for the license API.'),
      })
      .describe('License binding.'),
    version: z
      .string()
      .regex(/^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$/, 'must be a semantic version')
      .describe('Pelita version; the image tag of every service.'),
    image: z
      .object({
        registry: z
          .string()
          .min(1)
          .default('ghcr.io/pelita')
          .describe('Registry and path prefix; images are <registry>/<service>:<version>.'),
        pullPolicy: z
          .enum(['Always', 'IfNotPresent', 'Never'])
          .default('IfNotPresent')
          .describe('Image pull policy.'),
        pullSecrets: z.array(dnsLabel).default([]).describe('Names of image pull Secrets.'),
        opaImage: z
          .string()
          .min(1)
          .default('openpolicyagent/opa:1.22.2-static')
          .describe('Image of the OPA sidecar beside policy-sync.'),
      })
      .prefault({})
      .describe('Image settings.'),
    services: z
      .object(
        Object.fromEntries(SERVICE_NAMES.map((n) => [n, serviceEntry(n)])) as Record<
          ServiceName,
          ReturnType<typeof serviceEntry>
        >,
      )
      .prefault({})
      .describe('Per-service settings, keyed by service name.'),
    dependencies: dependenciesSchema.prefault({}).describe('External dependencies.'),
    platformSecretRef: z
      .object({ name: dnsLabel.describe('Secret name.') })
      .optional()
      .describe(
        'Secret of platform-internal keys (JWT_PRIVATE_KEY, JWT_PUBLIC_KEY, service tokens) loaded into every pod as environment.',
      ),
    observability: z
      .object({
        serviceMonitor: z
          .object({
            enabled: z.boolean().default(false).describe('Create Prometheus ServiceMonitors.'),
            interval: z
              .string()
              .regex(/^[0-9]+(s|m)$/, 'must be a duration like 30s or 1m')
              .default('30s')
              .describe('Scrape interval.'),
          })
          .prefault({})
          .describe('Prometheus Operator ServiceMonitor.'),
        otlpEndpoint: httpUrl.optional().describe('OTLP endpoint for traces.'),
        logLevel: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
          .default('info')
          .describe('Log level of every service.'),
      })
      .prefault({})
      .describe('Metrics, traces and logs.'),
    ingress: z
      .object({
        enabled: z.boolean().default(false).describe('Create an Ingress to core-backend.'),
        host: z
          .string()
          .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a DNS host name')
          .optional()
          .describe('Host name.'),
        className: z.string().min(1).optional().describe('IngressClass name.'),
        tlsSecretName: dnsLabel.optional().describe('TLS Secret name; no TLS when unset.'),
      })
      .prefault({})
      .refine((i) => !i.enabled || i.host !== undefined, {
        message: CROSS_FIELD_RULES.ingress.message,
        path: ['host'],
      })
      .describe('Ingress.'),
  })
  .describe('Desired state of one tenant platform.');

const conditionSchema = z.object({
  type: z.enum(['Ready', 'Progressing', 'Degraded']).describe('Condition type.'),
  status: z.enum(['True', 'False', 'Unknown']).describe('Condition status.'),
  reason: z.string().min(1).describe('CamelCase reason, always set.'),
  message: z.string().default('').describe('Human-readable detail.'),
  lastTransitionTime: z
    .string()
    .meta({ format: 'date-time' })
    .describe('RFC 3339 time of the last status change.'),
  observedGeneration: z.number().int().min(0).optional().describe('Generation this reflects.'),
});
export type Condition = z.infer<typeof conditionSchema>;

export const platformInstallStatusSchema = z
  .object({
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The spec generation last reconciled.'),
    conditions: z
      .array(conditionSchema)
      .default([])
      // One entry per type, merged by type under server-side apply (API conventions).
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })
      .describe('Ready, Progressing, Degraded.'),
    readyServices: z
      .string()
      .optional()
      .describe('Services with every replica ready, of those enabled ("3/5"), for kubectl.'),
    services: z
      .record(
        z.string(),
        z.object({
          ready: z.number().int().min(0).describe('Ready replicas.'),
          desired: z.number().int().min(0).describe('Desired replicas.'),
        }),
      )
      .optional()
      .describe('Ready and desired replicas per service.'),
  })
  .describe('Observed state.');

export type PlatformInstallSpec = z.infer<typeof platformInstallSpecSchema>;
export type PlatformInstallSpecInput = z.input<typeof platformInstallSpecSchema>;
export type PlatformInstallStatus = z.infer<typeof platformInstallStatusSchema>;

/** A PlatformInstall as the renderers see it: metadata from the API plus a parsed spec. */
export interface PlatformInstall {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: { name: string; namespace: string; uid: string; generation?: number };
  spec: PlatformInstallSpec;
  status?: PlatformInstallStatus;
}

/** Parses a raw spec (as stored in the API) into the defaulted form, or throws with every issue. */
export function parseSpec(raw: unknown): PlatformInstallSpec {
  const result = platformInstallSpecSchema.safeParse(raw);
  if (!result.success) {
    throw new Error(`invalid PlatformInstall spec: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}
