/** The settings each service gets: only what it reads, URLs only of services that run. */
import { renderConfigMap, renderWorkload } from '../../src/render';
import type { ServiceName } from '../../src/service-catalog';
import { makeInstall, minimalSpec } from './fixtures';

function config(install: ReturnType<typeof makeInstall>, service: ServiceName) {
  const data = renderConfigMap(install, service)?.data;
  if (!data) throw new Error(`no ConfigMap for ${service}`);
  return data;
}

describe('service settings', () => {
  it('sets an in-install URL only while its target runs', () => {
    const off = makeInstall({ services: { 'core-backend': { enabled: false } } });
    expect(config(off, 'user-service')).not.toHaveProperty('CORE_BACKEND_URL');
    const on = makeInstall({ services: { 'core-backend': { enabled: true } } });
    expect(config(on, 'user-service')).toMatchObject({
      CORE_BACKEND_URL: 'http://acme-core-backend:3000',
      POLICY_SYNC_URL: 'http://acme-policy-sync:3666',
      URL_OPA: 'http://acme-policy-sync:8181',
    });
    // core-backend without the OCR services: no URL_OCR (documents are refused with a 503).
    const noOcr = makeInstall({
      services: { 'ocr-service': { enabled: false }, 'ocr-worker': { enabled: false } },
    });
    const core = config(noOcr, 'core-backend');
    expect(core).not.toHaveProperty('URL_OCR');
    expect(core).toMatchObject({
      URL_USER: 'http://acme-user-service:3000',
      URL_OPA: 'http://acme-policy-sync:8181',
      KNOWLEDGE_INDEX: 'pelita-shared-knowledge',
    });
  });

  it('takes LICENSE_API_URL from spec.license.apiUrl, also with the license service running', () => {
    const install = makeInstall({ services: { 'license-service': { enabled: true } } });
    expect(config(install, 'user-service').LICENSE_API_URL).toBe('https://license.example.com');
  });

  it('sets FRONTEND_URL from spec.publicUrl, else from the Ingress host', () => {
    expect(config(makeInstall(), 'user-service')).not.toHaveProperty('FRONTEND_URL');
    const explicit = makeInstall({ publicUrl: 'https://app.acme.example' });
    expect(config(explicit, 'user-service').FRONTEND_URL).toBe('https://app.acme.example');
    const tls = makeInstall({
      ingress: { enabled: true, host: 'acme.example.com', tlsSecretName: 'acme-tls' },
    });
    expect(config(tls, 'user-service').FRONTEND_URL).toBe('https://acme.example.com');
    const plain = makeInstall({ ingress: { enabled: true, host: 'acme.example.com' } });
    expect(config(plain, 'user-service').FRONTEND_URL).toBe('http://acme.example.com');
  });

  it("believes the Ingress's and core-backend's X-Forwarded-For, exactly those hops", () => {
    const plain = makeInstall();
    expect(config(plain, 'core-backend').TRUST_PROXY).toBe('0');
    expect(config(plain, 'user-service').TRUST_PROXY).toBe('1');
    const behind = makeInstall({ ingress: { enabled: true, host: 'acme.example.com' } });
    expect(config(behind, 'core-backend').TRUST_PROXY).toBe('1');
    expect(config(behind, 'user-service').TRUST_PROXY).toBe('2');
    // Without core-backend no login is relayed: nothing in front of the user service.
    const alone = makeInstall({
      ingress: { enabled: true, host: 'acme.example.com' },
      services: { 'core-backend': { enabled: false } },
    });
    expect(config(alone, 'user-service').TRUST_PROXY).toBe('0');
  });

  it('points every service at the secret store, its identity from the Secret', () => {
    expect(config(makeInstall(), 'summarizer')).not.toHaveProperty('INFISICAL_URL');
    const install = makeInstall({
      secretStore: {
        url: 'https://infisical.acme.example',
        projectId: 'proj-1',
        path: '/pelita',
        credentialsSecretRef: { name: 'infisical-identity' },
      },
      services: { summarizer: { enabled: true }, 'core-backend': { enabled: true } },
    });
    for (const service of ['summarizer', 'core-backend', 'user-service'] as const) {
      expect(config(install, service)).toMatchObject({
        INFISICAL_URL: 'https://infisical.acme.example',
        INFISICAL_PROJECT_ID: 'proj-1',
        INFISICAL_ENVIRONMENT: 'prod',
        INFISICAL_SECRET_PATH: '/pelita',
        INFISICAL_REFRESH_SECONDS: '300',
      });
      const env = renderWorkload(install, service)?.spec?.template.spec?.containers[0]?.env ?? [];
      expect(env.filter((e) => e.name.startsWith('INFISICAL_'))).toEqual([
        {
          name: 'INFISICAL_CLIENT_ID',
          valueFrom: { secretKeyRef: { name: 'infisical-identity', key: 'clientId' } },
        },
        {
          name: 'INFISICAL_CLIENT_SECRET',
          valueFrom: { secretKeyRef: { name: 'infisical-identity', key: 'clientSecret' } },
        },
      ]);
    }
  });

  it('gives every install its own SYNC_CHANNEL', () => {
    const a = makeInstall();
    const b = { ...a, metadata: { ...a.metadata, name: 'other' } };
    const channelA = config(a, 'policy-sync').SYNC_CHANNEL;
    const channelB = config(b, 'policy-sync').SYNC_CHANNEL;
    expect(channelA).toBe('pelita:tenant-acme/acme:policy-sync:trigger');
    expect(channelB).not.toBe(channelA);
  });

  it("sizes the PostgreSQL pools of every service using PostgreSQL from the install's pool settings", () => {
    const sized = makeInstall({
      services: { 'license-service': { enabled: true } },
      dependencies: {
        ...minimalSpec.dependencies,
        postgres: {
          url: 'postgres://pg.db:5432/pelita',
          pool: { max: 4, idleTimeoutSeconds: 30 },
        },
      },
    });
    for (const service of ['user-service', 'core-backend', 'license-service'] as const) {
      expect(config(sized, service)).toMatchObject({
        DATABASE_URL: 'postgres://pg.db:5432/pelita',
        DATABASE_POOL_MAX: '4',
        DATABASE_POOL_IDLE_MS: '30000',
      });
    }
    // Services without PostgreSQL get none of it.
    expect(config(sized, 'ocr-service')).not.toHaveProperty('DATABASE_POOL_MAX');
    // Unset: nothing is rendered, the services' defaults apply (and existing installs keep
    // their ConfigMaps as they were).
    const plain = config(makeInstall(), 'core-backend');
    expect(plain).not.toHaveProperty('DATABASE_POOL_MAX');
    expect(plain).not.toHaveProperty('DATABASE_POOL_IDLE_MS');
    const onlyMax = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        postgres: { url: 'postgres://pg.db:5432/pelita', pool: { max: 2 } },
      },
    });
    expect(config(onlyMax, 'user-service').DATABASE_POOL_MAX).toBe('2');
    expect(config(onlyMax, 'user-service')).not.toHaveProperty('DATABASE_POOL_IDLE_MS');
  });

  it('passes the Redis password as a setting of its own, never spliced into the URL', () => {
    const install = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        redis: { url: 'redis://redis.db:6379/0', passwordSecretRef: { name: 'redis', key: 'pw' } },
      },
    });
    for (const service of ['user-service', 'policy-sync', 'ocr-service', 'ocr-worker'] as const) {
      expect(config(install, service).REDIS_URL).toBe('redis://redis.db:6379/0');
      const env = renderWorkload(install, service)?.spec?.template.spec?.containers[0]?.env;
      expect(env).toContainEqual({
        name: 'REDIS_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'redis', key: 'pw' } },
      });
      expect(env?.some((e) => e.value?.includes('$('))).toBe(false);
    }
  });

  it('gives every install its own OCR queue and status keys, the same for its API and workers', () => {
    const a = makeInstall();
    const b = { ...a, metadata: { ...a.metadata, name: 'other' } };
    expect(config(a, 'ocr-service').REDIS_KEY_PREFIX).toBe('pelita:tenant-acme/acme:ocr');
    expect(config(a, 'ocr-worker').REDIS_KEY_PREFIX).toBe(
      config(a, 'ocr-service').REDIS_KEY_PREFIX,
    );
    expect(config(b, 'ocr-service').REDIS_KEY_PREFIX).toBe('pelita:tenant-acme/other:ocr');
    expect(config(b, 'ocr-worker').REDIS_KEY_PREFIX).not.toBe(
      config(a, 'ocr-worker').REDIS_KEY_PREFIX,
    );
  });

  it('gives the user service and core-backend one Redis key prefix per install, the same for both', () => {
    const a = makeInstall();
    const b = { ...a, metadata: { ...a.metadata, name: 'other' } };
    expect(config(a, 'user-service').REDIS_KEY_PREFIX).toBe('pelita:tenant-acme/acme:');
    // core-backend checks the sessions the user service keeps: it must read the same keys.
    expect(config(a, 'core-backend').REDIS_KEY_PREFIX).toBe('pelita:tenant-acme/acme:');
    expect(config(b, 'user-service').REDIS_KEY_PREFIX).toBe('pelita:tenant-acme/other:');
    expect(config(b, 'core-backend').REDIS_KEY_PREFIX).toBe('pelita:tenant-acme/other:');
  });

  it('gives each install its own activity log index, written by the user service and core-backend', () => {
    const a = makeInstall({ search: { layout: 'perInstall' } });
    const b = { ...a, metadata: { ...a.metadata, name: 'other' } };
    const index = 'pelita-tenant-acme-acme-user-activity-log';
    expect(config(a, 'user-service').INDEX_USER_ACTIVITY_LOG).toBe(index);
    expect(config(a, 'core-backend').INDEX_USER_ACTIVITY_LOG).toBe(index);
    expect(config(b, 'user-service').INDEX_USER_ACTIVITY_LOG).toBe(
      'pelita-tenant-acme-other-user-activity-log',
    );
  });

  it('gives each install its own OCR indexes, the same for the OCR API, the worker and core-backend', () => {
    const a = makeInstall({ search: { layout: 'perInstall' } });
    const b = { ...a, metadata: { ...a.metadata, name: 'other' } };
    const indexes = (name: string) => ({
      INDEX_PDF_PARSING_RESULTS: `pelita-tenant-acme-${name}-pdf-parsing-results`,
      INDEX_DOCUMENT_SUMMARIZE: `pelita-tenant-acme-${name}-summarize-document`,
      INDEX_DOCUMENT_SUMMARIZE_CHUNK: `pelita-tenant-acme-${name}-summarize-document-chunk`,
    });
    for (const service of ['ocr-service', 'ocr-worker', 'core-backend'] as const) {
      expect(config(a, service)).toMatchObject(indexes('acme'));
      expect(config(b, service)).toMatchObject(indexes('other'));
    }
  });

  it('puts every install in the shared indexes by default, told apart by its namespace and name', () => {
    const a = makeInstall();
    const b = { ...a, metadata: { ...a.metadata, namespace: 'tenant-b', name: 'other' } };
    const shared = {
      INDEX_PDF_PARSING_RESULTS: 'pelita-shared-pdf-parsing-results',
      INDEX_DOCUMENT_SUMMARIZE: 'pelita-shared-summarize-document',
      INDEX_DOCUMENT_SUMMARIZE_CHUNK: 'pelita-shared-summarize-document-chunk',
      INDEX_SHARDS: '1',
      INDEX_REPLICAS: '1',
    };
    for (const service of ['ocr-service', 'ocr-worker', 'core-backend'] as const) {
      expect(config(a, service)).toMatchObject({ ...shared, SEARCH_TENANT: 'tenant-acme/acme' });
      expect(config(b, service)).toMatchObject({ ...shared, SEARCH_TENANT: 'tenant-b/other' });
    }
    for (const service of ['user-service', 'core-backend'] as const) {
      expect(config(a, service)).toMatchObject({
        INDEX_USER_ACTIVITY_LOG: 'pelita-shared-user-activity-log',
        SEARCH_TENANT: 'tenant-acme/acme',
      });
    }
    expect(config(a, 'core-backend').KNOWLEDGE_INDEX).toBe('pelita-shared-knowledge');
  });

  it("tells the service that writes an index the install's own one from before, to move it in", () => {
    const a = makeInstall();
    expect(config(a, 'core-backend').LEGACY_KNOWLEDGE_INDEX).toBe(
      'pelita-tenant-acme-acme-knowledge',
    );
    expect(config(a, 'user-service').LEGACY_INDEX_USER_ACTIVITY_LOG).toBe(
      'pelita-tenant-acme-acme-user-activity-log',
    );
    expect(config(a, 'ocr-worker')).toMatchObject({
      LEGACY_INDEX_PDF_PARSING_RESULTS: 'pelita-tenant-acme-acme-pdf-parsing-results',
      LEGACY_INDEX_DOCUMENT_SUMMARIZE: 'pelita-tenant-acme-acme-summarize-document',
      LEGACY_INDEX_DOCUMENT_SUMMARIZE_CHUNK: 'pelita-tenant-acme-acme-summarize-document-chunk',
    });
    // Only the writer moves: core-backend only reads the OCR indexes, only writes the log.
    const core = Object.keys(config(a, 'core-backend')).filter((k) => k.startsWith('LEGACY_'));
    expect(core).toEqual(['LEGACY_KNOWLEDGE_INDEX']);
    expect(Object.keys(config(a, 'ocr-service')).some((k) => k.startsWith('LEGACY_'))).toBe(false);
  });

  it('renders the per-install layout with its own indexes, the shape given, and no tenant', () => {
    const own = makeInstall({ search: { layout: 'perInstall', shards: 2, replicas: 0 } });
    for (const service of ['user-service', 'core-backend', 'ocr-service', 'ocr-worker'] as const) {
      const settings = config(own, service);
      expect(settings).toMatchObject({ INDEX_SHARDS: '2', INDEX_REPLICAS: '0' });
      expect(Object.keys(settings).filter((k) => /^(SEARCH_TENANT|LEGACY_)/.test(k))).toEqual([]);
    }
    expect(config(own, 'core-backend').KNOWLEDGE_INDEX).toBe('pelita-tenant-acme-acme-knowledge');
  });

  it('tells the OCR API and the worker the engines, and only the worker the cloud key', () => {
    const apiKeySecretRef = { name: 'ocr', key: 'cloud-key' };
    const install = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        ocrEngines: { cloud: { url: 'https://mineru.example.com/api/v4', apiKeySecretRef } },
      },
    });
    const engines = {
      OCR_ENGINE_LOCAL_URL: 'http://acme-ocr-engine:3000',
      OCR_ENGINE_CLOUD_URL: 'https://mineru.example.com/api/v4',
    };
    expect(config(install, 'ocr-service')).toMatchObject(engines);
    expect(config(install, 'ocr-worker')).toMatchObject(engines);
    const env = (service: ServiceName) =>
      renderWorkload(install, service)?.spec?.template.spec?.containers[0]?.env ?? [];
    expect(env('ocr-worker')).toContainEqual({
      name: 'OCR_ENGINE_CLOUD_API_KEY',
      valueFrom: { secretKeyRef: apiKeySecretRef },
    });
    expect(env('ocr-service').map((e) => e.name)).not.toContain('OCR_ENGINE_CLOUD_API_KEY');
    expect(config(install, 'ocr-service')).not.toHaveProperty('OCR_ENGINE_CLOUD_API_KEY');
    expect(config(install, 'ocr-worker')).not.toHaveProperty('OCR_ENGINE_CLOUD_API_KEY');
  });

  it('takes the local OCR engine from the install, else the in-install ocr-engine while it runs', () => {
    const external = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        ocrEngines: { local: { url: 'http://mineru.gpu:8000' } },
      },
    });
    expect(config(external, 'ocr-service').OCR_ENGINE_LOCAL_URL).toBe('http://mineru.gpu:8000');
    const none = makeInstall({ services: { 'ocr-engine': { enabled: false } } });
    for (const service of ['ocr-service', 'ocr-worker'] as const) {
      expect(config(none, service)).not.toHaveProperty('OCR_ENGINE_LOCAL_URL');
      expect(config(none, service)).not.toHaveProperty('OCR_ENGINE_CLOUD_URL');
    }
  });

  it("keeps OCR uploads in /tmp and the worker's task files on its volume", () => {
    const install = makeInstall();
    expect(config(install, 'ocr-service')).toMatchObject({ TEMP_DIR: '/tmp' });
    expect(config(install, 'ocr-service')).not.toHaveProperty('WORK_DIR');
    expect(config(install, 'ocr-worker')).toMatchObject({
      TEMP_DIR: '/tmp',
      WORK_DIR: '/var/lib/ocr',
      URL_CONVERTER: 'http://acme-office-converter:3000',
      URL_SUMMARIZER: 'http://acme-summarizer:3000',
    });
    expect(config(install, 'ocr-service')).not.toHaveProperty('URL_CONVERTER');
  });

  it('sets S3_PUBLIC_URL for the OCR services only when the install names one', () => {
    expect(config(makeInstall(), 'ocr-worker')).not.toHaveProperty('S3_PUBLIC_URL');
    const install = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        s3: { ...minimalSpec.dependencies?.s3, publicUrl: 'https://files.acme.example/acme' },
      } as typeof minimalSpec.dependencies,
    });
    for (const service of ['ocr-service', 'ocr-worker'] as const) {
      expect(config(install, service).S3_PUBLIC_URL).toBe('https://files.acme.example/acme');
    }
  });

  it('sets PORT for every service, from the catalog', () => {
    const install = makeInstall();
    expect(config(install, 'policy-sync')).toMatchObject({ PORT: '3666' });
    expect(config(install, 'policy-sync')).not.toHaveProperty('NODE_PORT');
    expect(config(install, 'summarizer')).toMatchObject({ PORT: '3000', TEMP_DIR: '/tmp' });
  });
});
