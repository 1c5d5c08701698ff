/**
 * Each service's settings of its own, derived from the install: the names it reads besides its
 * dependencies' and its links' (which come from its catalog entry, render/settings.ts). Kept out
 * of the catalog because they read the PlatformInstall, which the catalog sits below.
 */
import type { PlatformInstall, SecretKeyRef } from '../crd/platform-install';
import { OPA_PORT, type Link, type ServiceName } from '../service-catalog';
import { exposedServices, isEnabled } from './enabled-services';

export interface SettingsContext {
  url: (link: Link) => string;
  /** The install's JWT public key (PEM) read from its platform Secret, when known. */
  jwtPublicKey: string | undefined;
}

export interface OwnSettings {
  /** Non-secret settings, by setting name. */
  settings?: (install: PlatformInstall, context: SettingsContext) => Record<string, string>;
  /** Settings taken from Secrets, by setting name (unset refs are left out). */
  secretSettings?: (install: PlatformInstall) => Record<string, SecretKeyRef | undefined>;
  /**
   * In-install services it calls through a URL built in `settings` rather than a catalog `links`
   * entry (only while they run). With `links`, the call graph the NetworkPolicies open.
   */
  calls?: (install: PlatformInstall) => readonly ServiceName[];
}

export const OWN_SETTINGS: Readonly<Partial<Record<ServiceName, OwnSettings>>> = {
  'http-proxy': {
    // The non-public upstreams the tenant's API connections may reach (public ones always).
    settings: (install): Record<string, string> => {
      const targets = install.spec.apis.allowedTargets;
      return targets.length > 0 ? { ALLOWED_TARGETS: targets.join(',') } : {};
    },
  },
  'db-proxy': {
    settings: (install): Record<string, string> => {
      const hosts = install.spec.databases.allowedHosts;
      return hosts.length > 0 ? { ALLOWED_DB_HOSTS: hosts.join(',') } : {};
    },
  },
  'user-service': {
    settings: (install, { jwtPublicKey }): Record<string, string> => {
      const url = publicUrl(install);
      return {
        ...(url ? { FRONTEND_URL: url } : {}),
        ...(jwtPublicKey ? { JWT_PUBLIC_KEY: jwtPublicKey } : {}),
        REDIS_KEY_PREFIX: redisKeyPrefix(install),
        INDEX_USER_ACTIVITY_LOG: activityLogIndex(install),
        ...searchLayout(install),
        // It moves the activity log of the install's own index, when there was one.
        ...legacyIndex(install, 'LEGACY_INDEX_USER_ACTIVITY_LOG', 'user-activity-log'),
        // Logins from the chat page come through core-backend's relay, which passes the
        // visitor's address on: its hop, and the Ingress's before it, are believed.
        TRUST_PROXY: String(isEnabled(install, 'core-backend') ? ingressHops(install) + 1 : 0),
      };
    },
    secretSettings: (install) =>
      bootstrapAdmin(install, 'FIRST_ADMIN_EMAIL', 'FIRST_ADMIN_PASSWORD'),
  },
  'policy-sync': {
    settings: (install) => ({
      URL_OPA: `http://127.0.0.1:${OPA_PORT}`,
      POLICY_DATA_FILE: '/share/data.json',
      // Installs sharing one Redis must not trigger each other's syncs.
      SYNC_CHANNEL: `pelita:${install.metadata.namespace}/${install.metadata.name}:policy-sync:trigger`,
    }),
  },
  'license-service': {
    // The first dashboard account (it enrols its TOTP second factor at its first login).
    secretSettings: (install) => bootstrapAdmin(install, 'ADMIN_EMAIL', 'ADMIN_PASSWORD'),
  },
  'core-backend': {
    settings: (install, { jwtPublicKey }) => ({
      KNOWLEDGE_INDEX: installIndex(install, 'knowledge'),
      ...searchLayout(install),
      ...legacyIndex(install, 'LEGACY_KNOWLEDGE_INDEX', 'knowledge'),
      TEMP_DIR: '/tmp',
      // Access tokens are verified with it; unset, core-backend asks the user service at start.
      ...(jwtPublicKey ? { JWT_PUBLIC_KEY: jwtPublicKey } : {}),
      // The same as the user service's: core-backend checks the sessions it keeps in Redis.
      REDIS_KEY_PREFIX: redisKeyPrefix(install),
      INDEX_USER_ACTIVITY_LOG: activityLogIndex(install),
      // It reads the OCR results and summaries the worker writes.
      ...ocrIndexes(install),
      // Visitors' addresses (widget limits, relayed logins) are behind the Ingress's.
      TRUST_PROXY: String(ingressHops(install)),
      // One WhatsApp reply's send: the seed's 24 h would hold an outbox slot as long on a hung
      // connection, and the outbox retries a send that timed out.
      WHATSAPP_TIMEOUT: '30000',
    }),
  },
  // No engine key: the API never calls an engine, it only refuses one not configured.
  'ocr-service': { settings: ocrSettings },
  'ocr-worker': {
    // The in-install engine, unless an external one is configured (ocrSettings' local URL). The
    // API is told the same URL but never calls it.
    calls: (install) => (install.spec.dependencies.ocrEngines.local ? [] : ['ocr-engine']),
    settings: (install, context) => ({
      ...ocrSettings(install, context),
      WORK_DIR: '/var/lib/ocr',
      // The worker writes the three OCR indexes: it moves the install's own ones in.
      ...legacyIndex(install, 'LEGACY_INDEX_PDF_PARSING_RESULTS', 'pdf-parsing-results'),
      ...legacyIndex(install, 'LEGACY_INDEX_DOCUMENT_SUMMARIZE', 'summarize-document'),
      ...legacyIndex(install, 'LEGACY_INDEX_DOCUMENT_SUMMARIZE_CHUNK', 'summarize-document-chunk'),
    }),
    secretSettings: (install) => ({
      OCR_ENGINE_CLOUD_API_KEY: install.spec.dependencies.ocrEngines.cloud?.apiKeySecretRef,
    }),
  },
  summarizer: { settings: () => ({ TEMP_DIR: '/tmp' }) },
};

/**
 * What the OCR API and the worker both read (one settings schema): their Redis keys, the engines
 * configured (the API answers 400 for any other and its health lists them), uploads in `/tmp`.
 */
function ocrSettings(install: PlatformInstall, { url }: SettingsContext) {
  const { ocrEngines, s3 } = install.spec.dependencies;
  const local =
    ocrEngines.local?.url ??
    (isEnabled(install, 'ocr-engine') ? url({ service: 'ocr-engine' }) : undefined);
  return {
    // Installs sharing one Redis must not share a queue or status records.
    REDIS_KEY_PREFIX: `pelita:${install.metadata.namespace}/${install.metadata.name}:ocr`,
    ...ocrIndexes(install),
    ...searchLayout(install),
    TEMP_DIR: '/tmp',
    ...(local ? { OCR_ENGINE_LOCAL_URL: local } : {}),
    ...(ocrEngines.cloud ? { OCR_ENGINE_CLOUD_URL: ocrEngines.cloud.url } : {}),
    ...(s3?.publicUrl ? { S3_PUBLIC_URL: s3.publicUrl } : {}),
  };
}

/** The bootstrap administrator's email and password, from `spec.bootstrapAdmin`'s Secret. */
function bootstrapAdmin(
  install: PlatformInstall,
  emailSetting: string,
  passwordSetting: string,
): Record<string, SecretKeyRef | undefined> {
  const admin = install.spec.bootstrapAdmin?.secretRef.name;
  return {
    [emailSetting]: admin ? { name: admin, key: 'email' } : undefined,
    [passwordSetting]: admin ? { name: admin, key: 'password' } : undefined,
  };
}

/**
 * Before every Redis key of the user service and core-backend (sessions, rate limits, caches):
 * installs sharing one Redis never read or revoke each other's sessions.
 */
function redisKeyPrefix(install: PlatformInstall): string {
  return `pelita:${install.metadata.namespace}/${install.metadata.name}:`;
}

/**
 * The activity log both the user service and core-backend write, and administrators read (only
 * their install's: its own index, or its tenant's documents of the shared one).
 */
function activityLogIndex(install: PlatformInstall): string {
  return installIndex(install, 'user-activity-log');
}

/**
 * The OCR results, document summaries and chunk summaries the worker writes and core-backend
 * reads. The seed's names are the services' defaults, for a single install.
 */
function ocrIndexes(install: PlatformInstall) {
  return {
    INDEX_PDF_PARSING_RESULTS: installIndex(install, 'pdf-parsing-results'),
    INDEX_DOCUMENT_SUMMARIZE: installIndex(install, 'summarize-document'),
    INDEX_DOCUMENT_SUMMARIZE_CHUNK: installIndex(install, 'summarize-document-chunk'),
  };
}

/**
 * The index an install's `what` goes to: one all installs share (`spec.search.layout: shared`,
 * where the tenant keeps them apart), or one of its own. Either way installs sharing one
 * OpenSearch never read, overwrite or delete each other's documents.
 */
function installIndex(install: PlatformInstall, what: string): string {
  return install.spec.search.layout === 'shared'
    ? `pelita-shared-${what}`
    : ownIndex(install, what);
}

/** The install's own index of `what`: its name in the per-install layout (and before it). */
function ownIndex(install: PlatformInstall, what: string): string {
  return `pelita-${install.metadata.namespace}-${install.metadata.name}-${what}`;
}

/**
 * SEARCH_TENANT when the indexes are shared: the install's namespace and name, unique among the
 * installs of a cluster (a namespace name has no `/`), as its Redis key prefix is. And the shape
 * of the indexes the services create.
 */
function searchLayout(install: PlatformInstall): Record<string, string> {
  const { layout, shards, replicas } = install.spec.search;
  return {
    ...(layout === 'shared'
      ? { SEARCH_TENANT: `${install.metadata.namespace}/${install.metadata.name}` }
      : {}),
    INDEX_SHARDS: String(shards),
    INDEX_REPLICAS: String(replicas),
  };
}

/**
 * In the shared layout, the install's own index from the per-install layout (every install made
 * before it, or one switched back): the service moves its documents into the shared index at
 * start and deletes it; a name that does not exist costs one request.
 */
function legacyIndex(
  install: PlatformInstall,
  setting: string,
  what: string,
): Record<string, string> {
  return install.spec.search.layout === 'shared' ? { [setting]: ownIndex(install, what) } : {};
}

/** Proxies in front of core-backend whose X-Forwarded-For it believes: its Ingress, when rendered. */
function ingressHops(install: PlatformInstall): number {
  return exposedServices(install).includes('core-backend') ? 1 : 0;
}

/** Where users reach the platform (links in mail): `spec.publicUrl`, else the Ingress host. */
function publicUrl(install: PlatformInstall): string | undefined {
  const { publicUrl: explicit, ingress } = install.spec;
  if (explicit) return explicit;
  if (!ingress.enabled || !ingress.host) return undefined;
  return `${ingress.tlsSecretName ? 'https' : 'http'}://${ingress.host}`;
}
