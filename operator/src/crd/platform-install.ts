/**
 * The PlatformInstall custom resource: one zod schema is the single source of the TypeScript
 * types, the defaults applied in the operator, and the CRD's OpenAPI schema (generate-crd.ts).
 */
import { parseAllowedTargets } from '@pelita/kit';
import { z } from 'zod';
import {
  CATALOG,
  DEFAULT_OPA_IMAGE,
  DEFAULT_REGISTRY,
  SERVICE_NAMES,
  type ServiceName,
} from '../service-catalog';
import {
  CROSS_FIELD_RULES,
  requirementRules,
  TOLERATION_RULES,
  workVolumeRule,
} from './cross-field-rules';

export { SERVICE_NAMES, type ServiceName } from '../service-catalog';

export const GROUP = 'pelita.io';
export const VERSION = 'v1alpha1';
export const KIND = 'PlatformInstall';
export const PLURAL = 'platforminstalls';
export const SINGULAR = 'platforminstall';
export const SHORT_NAMES = ['pi'];
export const API_VERSION = `${GROUP}/${VERSION}`;

export { CROSS_FIELD_RULES, MAX_INSTALL_NAME_LENGTH } from './cross-field-rules';

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
/**
 * One entry of http-proxy's ALLOWED_TARGETS as the apiserver can check it: a host name, an IPv4
 * address or an IPv6 one (with brackets or a zone), either with a `/prefix`. The operator then
 * parses it with the service's own parser (`parseAllowedTargets`), which is exact.
 */
const ALLOWED_TARGET =
  /^([A-Za-z0-9_]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?([.][A-Za-z0-9_]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?)*[.]?|[0-9]{1,3}([.][0-9]{1,3}){3}(\/[0-9]{1,2})?|\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\]?(%[-A-Za-z0-9_.]+)?(\/[0-9]{1,3})?)$/;
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

/**
 * A label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters.
 * Written without backslashes, so that it can go into a CEL string literal as it is.
 */
const LABEL_KEY =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
const MAX_LABEL_KEY_LENGTH = 253 + 1 + 63;
const labelKey = z
  .string()
  .max(MAX_LABEL_KEY_LENGTH)
  .regex(new RegExp(LABEL_KEY), 'must be a label key ([prefix/]name)');
const labelValue = z
  .string()
  .max(63)
  .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/, 'must be a label value');

const MAX_NODE_SELECTOR_LABELS = 20;
const nodeSelectorSchema = z
  .record(z.string(), labelValue)
  .superRefine((selector, ctx) => {
    const keys = Object.keys(selector);
    if (keys.length > MAX_NODE_SELECTOR_LABELS) {
      ctx.addIssue({
        code: 'custom',
        message: `at most ${MAX_NODE_SELECTOR_LABELS} labels`,
      });
    }
    for (const key of keys) {
      if (!labelKey.safeParse(key).success) {
        ctx.addIssue({
          code: 'custom',
          message: `nodeSelector key "${key}" must be a label key ([prefix/]name)`,
        });
      }
    }
  })
  .meta({
    maxProperties: MAX_NODE_SELECTOR_LABELS,
    'x-kubernetes-validations': [
      {
        rule: `self.all(k, k.size() <= ${MAX_LABEL_KEY_LENGTH} && k.matches('${LABEL_KEY}'))`,
        message: 'nodeSelector keys must be label keys ([prefix/]name)',
      },
    ],
  })
  .describe("Node labels a pod's node must have (the pods' nodeSelector).");

const tolerationSchema = z
  .object({
    key: labelKey
      .optional()
      .describe('Taint key it matches; unset (with operator Exists): every taint.'),
    operator: z
      .enum(['Exists', 'Equal'])
      .optional()
      .describe('Equal (unset: the default) matches key and value; Exists matches the key alone.'),
    value: labelValue.optional().describe('Taint value, with operator Equal.'),
    effect: z
      .enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'])
      .optional()
      .describe('Taint effect it matches; unset: every effect.'),
    tolerationSeconds: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('With effect NoExecute: how long the pod stays once the taint appears.'),
  })
  .superRefine((toleration, ctx) => {
    for (const rule of TOLERATION_RULES) {
      if (!rule.holds(toleration)) ctx.addIssue({ code: 'custom', message: rule.message });
    }
  })
  .meta({
    'x-kubernetes-validations': TOLERATION_RULES.map(({ rule, message }) => ({ rule, message })),
  })
  .describe('A Kubernetes toleration.');

const tolerationsSchema = z
  .array(tolerationSchema)
  .max(20)
  .describe("Taints the pods tolerate (the pods' tolerations).");

const envVarSchema = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name')
    .describe('Environment variable name.'),
  value: z.string().describe('Literal value (use the dependency Secret refs for credentials).'),
});

const envListSchema = z
  .array(envVarSchema)
  .max(100)
  .refine((list) => new Set(list.map((e) => e.name)).size === list.length, {
    message: 'env names must be unique',
  })
  // A list map: server-side apply merges entries by name, and the apiserver rejects duplicates.
  .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });

const serviceSettingsSchema = z.object({
  enabled: z
    .boolean()
    .optional()
    .describe(
      'Whether the operator runs this service; unset: the operator decides (true for the services built so far).',
    ),
  replicas: z.number().int().min(0).max(50).default(1).describe('Pod replicas (0-50).'),
  autoscaling: z
    .object({
      enabled: z
        .boolean()
        .default(false)
        .describe(
          'An autoscaler (e.g. an HPA the platform team creates) owns the replica count: the operator stops setting it and `replicas` is ignored.',
        ),
    })
    .prefault({})
    .describe('Replica ownership.'),
  resources: z
    .object({
      requests: resourceListSchema
        .prefault({})
        .describe('Resource requests; defaults to cpu 50m, memory 128Mi when unset.'),
      limits: resourceListSchema.optional().describe('Resource limits.'),
    })
    .prefault({})
    .describe('Container resources.'),
  env: envListSchema
    .default([])
    .describe(
      'Extra environment variables; an entry replaces the operator-derived variable of the same name.',
    ),
  placement: z
    .object({
      nodeSelector: nodeSelectorSchema
        .optional()
        .describe("Replaces spec.placement.nodeSelector for this service's pods ({}: none)."),
      tolerations: tolerationsSchema
        .optional()
        .describe("Replaces spec.placement.tolerations for this service's pods ([]: none)."),
    })
    .optional()
    .describe(
      "Where this service's pods run, instead of spec.placement; each field set here replaces the install's (no merge), a field left unset keeps it.",
    ),
});
export type ServiceSettings = z.output<typeof serviceSettingsSchema> & { enabled: boolean };

const workVolumeSchema = z
  .object({
    size: quantity.default('10Gi').describe("Requested size of each pod's volume."),
    storageClassName: z
      .string()
      .min(1)
      .optional()
      .describe('StorageClass of the volumes; unset: the cluster default.'),
    retentionPolicy: z
      .object({
        whenDeleted: z
          .enum(['Retain', 'Delete'])
          .default('Delete')
          .describe('Delete or keep the claims when the StatefulSet is deleted.'),
        whenScaled: z
          .enum(['Retain', 'Delete'])
          .default('Delete')
          .describe('Delete or keep the claims of pods removed by scaling down.'),
      })
      .prefault({})
      .describe('persistentVolumeClaimRetentionPolicy of the StatefulSet (scratch data: Delete).'),
  })
  .prefault({})
  .describe('The per-pod work volume (a volume claim template).');

// The default is resolved here, not by CRD defaulting, so that it moves when a service is built.
function withResolvedDefault<S extends z.ZodType<{ enabled?: boolean }>>(
  schema: S,
  built: boolean,
) {
  return schema
    .transform((s) => ({ ...s, enabled: s.enabled ?? built }))
    .prefault({} as z.input<S>);
}

// The type every entry is given: `volume` exists only for services with a claim per pod (the
// catalog says which), so it is optional here.
type ServiceEntrySchema = ReturnType<
  typeof withResolvedDefault<
    z.ZodObject<
      (typeof serviceSettingsSchema)['shape'] & { volume: z.ZodOptional<typeof workVolumeSchema> }
    >
  >
>;

function serviceEntry(name: ServiceName): ServiceEntrySchema {
  const { built, volumes } = CATALOG[name];
  const described = `Settings of the ${name} service.`;
  if (volumes.some((v) => v.source === 'claim')) {
    const withVolume = serviceSettingsSchema
      .extend({ volume: workVolumeSchema })
      .meta({ 'x-kubernetes-validations': [workVolumeRule(name)] });
    return withResolvedDefault(withVolume, built).describe(
      described,
    ) as unknown as ServiceEntrySchema;
  }
  return withResolvedDefault(serviceSettingsSchema, built).describe(
    described,
  ) as ServiceEntrySchema;
}

const labelMap = z.record(z.string(), z.string());

/** Pods of other namespaces let in by a NetworkPolicy: both label sets must match. */
function peerSchema(namespaceLabels: Record<string, string>, podLabels: Record<string, string>) {
  return z
    .object({
      namespaceLabels: labelMap
        .default(namespaceLabels)
        .describe('Labels of their namespace (kubernetes.io/metadata.name is the name itself).'),
      podLabels: labelMap.default(podLabels).describe('Labels of the pods.'),
    })
    .prefault({});
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
      pool: z
        .object({
          max: z
            .number()
            .int()
            .min(2)
            .max(100)
            .optional()
            .describe(
              'The most connections each pod of each of these services opens (DATABASE_POOL_MAX); unset: 10. At least 2: some changes hold a lock on one connection while they write on another.',
            ),
          idleTimeoutSeconds: z
            .number()
            .int()
            .min(1)
            .max(3600)
            .optional()
            .describe(
              'A connection unused this long is closed (DATABASE_POOL_IDLE_MS); unset: 10. An idle install closes all its connections.',
            ),
        })
        .optional()
        .describe("The services' connection pools (per pod)."),
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
      publicUrl: httpUrl
        .optional()
        .describe(
          "Base of the OCR results' PDF links (`output_pdf_file`, S3_PUBLIC_URL) when clients reach the bucket elsewhere than `url`; unset: `<url>/<bucket>`.",
        ),
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
    .describe(
      'OCR engines of the OCR workers; the OCR API refuses tasks for an engine not configured here.',
    ),
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
});

export const platformInstallSpecSchema = z
  .object({
    tenant: z
      .object({
        id: dnsLabel
          .describe('Stable tenant identifier (RFC 1123 label); cannot change.')
          .meta({ 'x-kubernetes-validations': [CROSS_FIELD_RULES.tenantId] }),
        displayName: z.string().min(1).max(200).describe('Human-readable tenant name.'),
      })
      .describe('Tenant identity.'),
    license: z
      .object({
        clientId: z.string().min(1).describe('License client id of this tenant.'),
        apiUrl: httpUrl.describe(
          'License API base URL used to validate the license (LICENSE_API_URL of the services).',
        ),
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
          .optional()
          .describe(
            `Registry and path prefix; images are <registry>/<service>:<version>. Unset: ${DEFAULT_REGISTRY} (resolved by the operator).`,
          ),
        pullPolicy: z
          .enum(['Always', 'IfNotPresent', 'Never'])
          .default('IfNotPresent')
          .describe('Image pull policy.'),
        pullSecrets: z.array(dnsLabel).default([]).describe('Names of image pull Secrets.'),
        opaImage: z
          .string()
          .min(1)
          .optional()
          .describe(
            "Image of the OPA sidecar beside policy-sync. Unset: the operator's own pinned OPA, which moves with operator upgrades.",
          ),
      })
      // Resolved when parsed, not by CRD defaulting: a stored object keeps no frozen default.
      .transform((image) => ({
        ...image,
        registry: image.registry ?? DEFAULT_REGISTRY,
        opaImage: image.opaImage ?? DEFAULT_OPA_IMAGE,
      }))
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
    deletionPolicy: z
      .enum(['Retain', 'Delete'])
      .default('Retain')
      .describe(
        "What deleting the install does to its data on the dependencies' servers. Retain: nothing is removed (an Event names what was kept). Delete: its OpenSearch indexes, its Redis keys, its objects and the PostgreSQL tables and schema Pelita created are removed before the install goes, except what another PlatformInstall resolves to as well.",
      ),
    publicUrl: httpUrl
      .optional()
      .describe(
        'URL where users reach the platform (links in mail, FRONTEND_URL); unset: the Ingress host.',
      ),
    platformSecretRef: z
      .object({ name: dnsLabel.describe('Secret name.') })
      .optional()
      .describe(
        'Secret of platform-internal keys (ES256 signing key pair, service tokens, OPA token, encryption key); the operator creates it with generated keys when absent and never changes an existing one. Unset: `<install>-platform`. Each container gets only the keys it needs.',
      ),
    databases: z
      .object({
        allowedHosts: z
          .array(
            z
              .string()
              .regex(/^[^,\s]+$/, 'one CIDR, address, host name or *.suffix, without commas')
              .describe('A CIDR, address, host name or `*.suffix` name.'),
          )
          .max(100)
          .default([])
          .describe(
            'The only hosts db-proxy may connect to (its ALLOWED_DB_HOSTS; the x-db-host header is otherwise an SSRF vector into the cluster). Empty: none, db-proxy refuses every host until the databases the workspaces query are listed.',
          ),
      })
      .prefault({})
      .describe('The databases the workspaces query through db-proxy.'),
    apis: z
      .object({
        allowedTargets: z
          .array(
            z
              .string()
              .max(300)
              .regex(ALLOWED_TARGET, 'one CIDR range, IP address or host name, without commas')
              .superRefine((entry, ctx) => {
                try {
                  parseAllowedTargets([entry]);
                } catch (err) {
                  ctx.addIssue({ code: 'custom', message: (err as Error).message });
                }
              })
              .describe('A CIDR range (`10.20.0.0/16`, `fd00::/8`), an IP address or a host name.'),
          )
          .max(100)
          .default([])
          .describe(
            "Non-public upstreams the workspaces' API connections (text-to-API, through http-proxy) may reach: http-proxy's ALLOWED_TARGETS. Public addresses are always reachable; loopback, private, link-local (cloud metadata) and other reserved addresses only when listed here, by range or address, or by the host name the connection uses. Empty: public addresses only.",
          ),
      })
      .prefault({})
      .describe("The APIs the workspaces' API connections call through http-proxy."),
    search: z
      .object({
        layout: z
          .enum(['shared', 'perInstall'])
          .default('shared')
          .describe(
            "shared: the install's documents go to indexes every install on the OpenSearch shares (pelita-shared-<what>), each document tagged with the install (SEARCH_TENANT = <namespace>/<name>) and every query filtered and routed by it; the indexes of the install's own from before are moved in at start, then deleted. perInstall: indexes of its own (pelita-<namespace>-<name>-<what>), five per install.",
          ),
        shards: z
          .number()
          .int()
          .min(1)
          .max(64)
          .default(1)
          .describe(
            'Primary shards of each index a service creates (INDEX_SHARDS). A shared index takes the settings of the install that creates it first.',
          ),
        replicas: z
          .number()
          .int()
          .min(0)
          .max(8)
          .default(1)
          .describe(
            'Replicas of each primary shard (INDEX_REPLICAS): 1 keeps a copy on another node.',
          ),
      })
      .prefault({})
      .describe("How the install's OpenSearch indexes are laid out."),
    placement: z
      .object({
        nodeSelector: nodeSelectorSchema.default({}),
        tolerations: tolerationsSchema.default([]),
      })
      .prefault({})
      .describe(
        "Where the install's pods run: nodeSelector and tolerations of every workload the operator renders (each service's Deployment, the OCR workers' StatefulSet, the office-converter pods); services.<service>.placement overrides it per service.",
      ),
    networkPolicy: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            "NetworkPolicies for the install's pods: ingress denied by default, each service reachable only from the install's services that call it, the ingress controller (core-backend) and Prometheus.",
          ),
        ingressController: peerSchema(
          { 'kubernetes.io/metadata.name': 'ingress-nginx' },
          { 'app.kubernetes.io/name': 'ingress-nginx' },
        ).describe('The ingress controller pods, let in to core-backend when `ingress.enabled`.'),
        prometheus: peerSchema(
          { 'kubernetes.io/metadata.name': 'monitoring' },
          { 'app.kubernetes.io/name': 'prometheus' },
        ).describe(
          "The Prometheus pods, let in to every service's metrics ports (/metrics: the http port; OPA's 8181 beside policy-sync).",
        ),
      })
      .prefault({})
      .describe('Network isolation of the install.'),
    bootstrapAdmin: z
      .object({
        secretRef: z
          .object({
            name: dnsLabel.describe('Secret with keys `email` and `password`.'),
          })
          .describe(
            'The first administrator: FIRST_ADMIN_EMAIL and FIRST_ADMIN_PASSWORD of the user service.',
          ),
      })
      .optional()
      .describe(
        'The administrator the user service creates at its first start (when it has no user yet).',
      ),
    secretStore: z
      .object({
        url: httpUrl.describe("Infisical's base URL (INFISICAL_URL of every service)."),
        projectId: z.string().min(1).max(200).describe('The Infisical project.'),
        environment: z.string().min(1).max(100).default('prod').describe('The environment slug.'),
        path: z.string().min(1).max(500).default('/').describe('The folder of the secrets.'),
        refreshSeconds: z
          .number()
          .int()
          .min(0)
          .max(86400)
          .default(300)
          .describe('How often services read the secrets again (0: only at start).'),
        credentialsSecretRef: z
          .object({
            name: dnsLabel.describe('Secret with keys `clientId` and `clientSecret`.'),
          })
          .describe('The machine identity (universal auth) the services log in with.'),
      })
      .optional()
      .describe(
        "Settings from Infisical (seed 002 B's secret manager): every service reads the secrets of this project, environment and path as the settings of the same name; the Deployment's own settings win where both are set.",
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
        enabled: z
          .boolean()
          .default(false)
          .describe(
            "Create an Ingress to core-backend's user-facing paths: its pages, API, widget and open APIs (never /metrics, /api-docs, /health, /ready).",
          ),
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
      .meta({ 'x-kubernetes-validations': [CROSS_FIELD_RULES.ingress] })
      .describe('Ingress.'),
  })
  .superRefine((spec, ctx) => {
    for (const requirement of requirementRules()) {
      if (!requirement.holds(spec)) ctx.addIssue({ code: 'custom', message: requirement.message });
    }
  })
  .meta({
    'x-kubernetes-validations': requirementRules().map(({ rule, message }) => ({ rule, message })),
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
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    annotations?: Record<string, string>;
  };
  spec: PlatformInstallSpec;
  status?: PlatformInstallStatus;
  /**
   * What the operator read from the install's platform Secret (not part of the resource): the
   * JWT public key goes into the ConfigMaps of the services that verify tokens.
   */
  platformKeys?: {
    jwtPublicKey?: string;
    /**
     * The Secret's resourceVersion: in the hash of the pods that read it, so a Secret replaced or
     * edited (seen at the next reconcile; Secrets are not watched) rolls exactly those pods
     * instead of leaving some with old tokens and others with new ones.
     */
    version?: string;
  };
}

/** Parses a raw spec (as stored in the API) into the defaulted form, or throws with every issue. */
export function parseSpec(raw: unknown): PlatformInstallSpec {
  const result = platformInstallSpecSchema.safeParse(raw);
  if (!result.success) {
    throw new Error(`invalid PlatformInstall spec: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}
