/**
 * The one table of what the operator knows about each service: image, ports, workload kind,
 * command, volumes, sidecars, the dependencies and in-install URLs it reads, and whether it is
 * built yet. Facts only, no PlatformInstall: the bottom of the operator's layers, read by the
 * schema, the renderers and the reconciler. Adding a service is one entry here plus the
 * settings it reads (its own ones derived from the install: render/own-settings.ts).
 */

/** In apply order: a service comes after the services it calls. */
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

/** External dependencies of `spec.dependencies`, each rendered as the same setting names everywhere. */
export type Dependency = 'postgres' | 'redis' | 'opensearch' | 's3' | 'llm' | 'smtp' | 'license';

const HTTP_PORT = 3000;
export const OPA_PORT = 8181;
/** Registry used when `spec.image.registry` is unset; resolved here so an upgrade moves it. */
export const DEFAULT_REGISTRY = 'ghcr.io/pelita';
/** The OPA sidecar's image when `spec.image.opaImage` is unset; an operator upgrade moves it. */
export const DEFAULT_OPA_IMAGE = 'openpolicyagent/opa:1.22.2-static';

/** An in-install URL: `http://<install>-<service>:<port>`, set only while that service runs. */
export interface Link {
  service: ServiceName;
  /** A named port of that service other than `http` (policy-sync's `opa`). */
  port?: 'opa';
}

export interface Volume {
  name: string;
  mountPath: string;
  /** `emptyDir` per pod, or a claim per pod from the StatefulSet's volume claim template. */
  source: 'emptyDir' | 'claim';
}

/** A path of the Ingress (`Prefix` matches whole path segments: `/api` is not `/api-docs`). */
export interface IngressPath {
  path: string;
  pathType: 'Exact' | 'Prefix';
}

export interface ServiceEntry {
  /** Image name under the registry; the tag is `spec.version`. */
  image: string;
  /** Port of the main container (named `http`), passed to it as `PORT`. */
  port: number;
  workload: 'Deployment' | 'StatefulSet';
  /** Overrides the image's entry point (ocr-worker is ocr-service's second entry point). */
  command?: string[];
  /** Whether an image exists yet: services not built default to `enabled: false`. */
  built: boolean;
  /** Dependencies whose settings it reads. */
  uses: readonly Dependency[];
  /** Dependencies and services it cannot start without (a CEL rule and a zod refinement). */
  requires: { dependencies: readonly Dependency[]; services: readonly ServiceName[] };
  /** In-install URLs it reads, by setting name; a URL is set only while its target runs. */
  links: Readonly<Record<string, Link>>;
  /** Volumes of the main container besides the emptyDir at `/tmp` every pod gets. */
  volumes: readonly Volume[];
  /** Sidecar containers; `opa` also mounts the install's policies ConfigMap. */
  sidecars: ReadonlyArray<'opa'>;
  /**
   * Its paths users reach through the install's Ingress (`spec.ingress`), which the ingress
   * controller is then let in for; none: not exposed outside the cluster.
   */
  ingressPaths: readonly IngressPath[];
  /**
   * Readiness probe time-out: above the service's own dependency check time-out (the kit's
   * default is 3 s), or a slow dependency makes the probe fail instead of `/ready` answering 503.
   */
  readyTimeoutSeconds: number;
  /** How long the start may take before the pod is restarted (startupProbe on `/health`). */
  startupSeconds: number;
  /**
   * The setting under which it checks its callers' service token. The token is the key
   * `<service>-token` of the platform Secret, and only the services that call it get it.
   */
  acceptsToken?: string;
  /**
   * The settings under which it sends the service token of each service it calls; rendered only
   * while that service runs (the caller then needs its URL too, in `links`).
   */
  presentsTokens?: Readonly<Record<string, ServiceName>>;
  /** Other keys of the platform Secret it reads, by setting name (nothing else reaches it). */
  platformKeys?: Readonly<Record<string, PlatformKey>>;
  /**
   * What its migrations create in the database of DATABASE_URL (which Pelita never creates):
   * tables in the connection's search_path, or a schema of its own named by a setting. What
   * `deletionPolicy: Delete` drops (test/unit/database-footprint.test.ts reads the migrations).
   */
  database?: DatabaseFootprint;
}

export type DatabaseFootprint =
  { tables: readonly string[] } | { schemaSetting: string; defaultSchema: string };

/** The kit's migration ledger, beside the tables of a service migrating in the search_path. */
const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * Keys of the platform Secret besides the service tokens: the user service's ES256 signing key
 * and its public half, core-backend's encryption key, and the OPA writer token shared by
 * policy-sync and its OPA sidecar.
 */
export const PLATFORM_KEYS = [
  'jwt-private-key',
  'jwt-public-key',
  'encryption-key',
  'opa-token',
] as const;
export type PlatformKey = (typeof PLATFORM_KEYS)[number];

const none = { dependencies: [], services: [] } as const;
const plainService = {
  port: HTTP_PORT,
  workload: 'Deployment',
  uses: [],
  requires: none,
  links: {},
  volumes: [],
  sidecars: [],
  ingressPaths: [],
  readyTimeoutSeconds: 4,
  startupSeconds: 60,
} as const;

export const CATALOG: Readonly<Record<ServiceName, ServiceEntry>> = {
  // Open gateways to any API or database: only callers holding their token get through.
  'http-proxy': {
    ...plainService,
    image: 'http-proxy',
    built: true,
    acceptsToken: 'PROXY_SERVICE_TOKEN',
  },
  'db-proxy': {
    ...plainService,
    image: 'db-proxy',
    built: true,
    acceptsToken: 'PROXY_SERVICE_TOKEN',
  },
  'user-service': {
    ...plainService,
    image: 'user-service',
    built: true,
    uses: ['postgres', 'redis', 'opensearch', 's3', 'smtp', 'license'],
    requires: { dependencies: ['postgres', 'redis'], services: ['policy-sync'] },
    links: {
      URL_OPA: { service: 'policy-sync', port: 'opa' },
      POLICY_SYNC_URL: { service: 'policy-sync' },
      CORE_BACKEND_URL: { service: 'core-backend' },
    },
    // Migrations run before `/ready` answers; the budget covers a slow first start.
    startupSeconds: 300,
    acceptsToken: 'OPEN_API_TOKEN',
    presentsTokens: { POLICY_SYNC_TOKEN: 'policy-sync', CORE_BACKEND_TOKEN: 'core-backend' },
    platformKeys: { JWT_PRIVATE_KEY: 'jwt-private-key' },
    database: {
      tables: [
        'roles',
        'users',
        'features',
        'sub_features',
        'policies',
        'role_shortcuts',
        'policy_sync_outbox',
        MIGRATIONS_TABLE,
      ],
    },
  },
  'policy-sync': {
    ...plainService,
    image: 'policy-sync',
    port: 3666,
    built: true,
    uses: ['redis'],
    requires: { dependencies: [], services: ['user-service'] },
    links: { URL_USER: { service: 'user-service' } },
    volumes: [{ name: 'share', mountPath: '/share', source: 'emptyDir' }],
    sidecars: ['opa'],
    acceptsToken: 'SYNC_SERVICE_TOKEN',
    presentsTokens: { USER_SERVICE_TOKEN: 'user-service' },
    // Its writes to the OPA sidecar (OPA's `system.authz` lets only this token write).
    platformKeys: { OPA_TOKEN: 'opa-token' },
  },
  // The vendor's service, not a tenant's: one license service for all tenants, run by its own
  // PlatformInstall that enables it (charts/pelita-operator/README.md). `built: false` keeps it
  // off unless an install asks for it, though its image exists.
  'license-service': {
    ...plainService,
    image: 'license-service',
    built: false,
    uses: ['postgres'],
    requires: { dependencies: ['postgres'], services: [] },
    // Migrations run before `/ready` answers; the budget covers a slow first start.
    startupSeconds: 300,
    database: {
      tables: [
        'roles',
        'admin_users',
        'clients',
        'licenses',
        'secret_mappings',
        'sessions',
        'activity_log',
        'api_known_addresses',
        MIGRATIONS_TABLE,
      ],
    },
  },
  'core-backend': {
    ...plainService,
    image: 'core-backend',
    built: true,
    uses: ['postgres', 'redis', 'opensearch', 's3', 'llm'],
    // Tokens are the user service's (its Redis sessions, its key), decisions OPA's.
    requires: {
      dependencies: ['postgres', 'redis', 'opensearch'],
      services: ['user-service', 'policy-sync'],
    },
    links: {
      URL_USER: { service: 'user-service' },
      URL_OPA: { service: 'policy-sync', port: 'opa' },
      URL_OCR: { service: 'ocr-service' },
      // Audio transcripts are summarised (documents are, by the OCR worker).
      URL_SUMMARIZER: { service: 'summarizer' },
      // A workspace's databases (text-to-SQL, schema) and API endpoints, each with its token.
      URL_DB_PROXY: { service: 'db-proxy' },
      URL_HTTP_PROXY: { service: 'http-proxy' },
    },
    // What users and their programs call (services/core-backend/README.md): the start page and
    // the chat page, their assets, the sign-in relay, the API, the widget, the OpenAI-compatible
    // and chat history open APIs. Not the kit's /health, /ready, /metrics, /api-docs (probes and
    // Prometheus come from inside the cluster) nor /utils (the user service's calls).
    ingressPaths: [
      { path: '/', pathType: 'Exact' },
      { path: '/chat', pathType: 'Exact' },
      { path: '/assets', pathType: 'Prefix' },
      { path: '/auth', pathType: 'Prefix' },
      { path: '/api', pathType: 'Prefix' },
      { path: '/embed', pathType: 'Prefix' },
      { path: '/open-api', pathType: 'Prefix' },
      { path: '/v1/api/open-api', pathType: 'Prefix' },
    ],
    // Migrations run before `/ready` answers; the budget covers a slow first start.
    startupSeconds: 300,
    acceptsToken: 'SERVICE_TOKEN',
    presentsTokens: { HTTP_PROXY_TOKEN: 'http-proxy', DB_PROXY_TOKEN: 'db-proxy' },
    // Encrypts the database and API credentials it stores.
    platformKeys: { ENCRYPTION_KEY: 'encryption-key' },
    // Its tables, ledger included, live in a schema it creates (`create schema if not exists`).
    database: { schemaSetting: 'DATABASE_SCHEMA', defaultSchema: 'core_backend' },
  },
  // The task API and the worker are one image with one settings schema (services/ocr-service).
  'ocr-service': {
    ...plainService,
    image: 'ocr-service',
    built: true,
    uses: ['redis', 'opensearch', 's3'],
    // Without a worker the API would accept tasks that never run (until its queue is full).
    requires: { dependencies: ['redis', 'opensearch', 's3'], services: ['ocr-worker'] },
  },
  'ocr-worker': {
    ...plainService,
    image: 'ocr-service',
    workload: 'StatefulSet',
    command: ['node', 'dist/worker.js'],
    built: true,
    uses: ['redis', 'opensearch', 's3'],
    // The converter is required, not optional: the API accepts office files, images and merges
    // without knowing whether a converter runs, and a worker without one fails those tasks (503)
    // long after they were accepted. An install that cannot convert is refused at apply time.
    requires: { dependencies: ['redis', 'opensearch', 's3'], services: ['office-converter'] },
    links: {
      URL_CONVERTER: { service: 'office-converter' },
      URL_SUMMARIZER: { service: 'summarizer' },
    },
    volumes: [{ name: 'work', mountPath: '/var/lib/ocr', source: 'claim' }],
  },
  'office-converter': { ...plainService, image: 'office-converter', built: true },
  'ocr-engine': { ...plainService, image: 'ocr-engine', built: true },
  summarizer: {
    ...plainService,
    image: 'summarizer',
    built: true,
    uses: ['llm'],
    requires: { dependencies: ['llm'], services: [] },
    // Its `/ready` lists the model server's models with UPSTREAM_CHECK_TIMEOUT_MS (5 s).
    readyTimeoutSeconds: 6,
  },
};

/** The platform Secret's key holding the service token `service` checks. */
export function tokenKey(service: ServiceName): string {
  return `${service}-token`;
}

/** Every key of the platform Secret: the fixed ones and the token of each service that checks one. */
export function platformSecretKeys(): string[] {
  const tokens = SERVICE_NAMES.filter((s) => CATALOG[s].acceptsToken).map(tokenKey);
  return [...PLATFORM_KEYS, ...tokens];
}

/**
 * Ports where Prometheus scrapes `/metrics`: every port of the service's Service — the main
 * container's `http` and the OPA sidecar's `opa`, whose `GET /metrics` `policies/system_authz.rego`
 * lets anyone read (counters and timings only; issue 19). The NetworkPolicy lets Prometheus in on
 * these ports and the ServiceMonitor has an endpoint for each name.
 */
export function metricsPorts(service: ServiceName): Array<{ name: string; port: number }> {
  return servicePorts(service);
}

/** The names of the metrics ports of all services (`http`, `opa`): the ServiceMonitor's endpoints. */
export function metricsPortNames(): string[] {
  return [...new Set(SERVICE_NAMES.flatMap((s) => metricsPorts(s).map((p) => p.name)))];
}

/** Ports of the service's Service: `http`, plus the sidecars' (`opa`). */
export function servicePorts(service: ServiceName): Array<{ name: string; port: number }> {
  const entry = CATALOG[service];
  return [
    { name: 'http', port: entry.port },
    ...entry.sidecars.map((sidecar) => ({ name: sidecar, port: OPA_PORT })),
  ];
}
