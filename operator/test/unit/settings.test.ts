/** The settings each service gets: only what it reads, URLs only of services that run. */
import { renderConfigMap, renderDeployment } from '../../src/render';
import type { ServiceName } from '../../src/service-catalog';
import { makeInstall } from './fixtures';

function config(install: ReturnType<typeof makeInstall>, service: ServiceName) {
  const data = renderConfigMap(install, service)?.data;
  if (!data) throw new Error(`no ConfigMap for ${service}`);
  return data;
}

describe('service settings', () => {
  it('sets an in-install URL only while its target runs', () => {
    const off = makeInstall();
    expect(config(off, 'user-service')).not.toHaveProperty('CORE_BACKEND_URL');
    const on = makeInstall({ services: { 'core-backend': { enabled: true } } });
    expect(config(on, 'user-service')).toMatchObject({
      CORE_BACKEND_URL: 'http://acme-core-backend:3000',
      POLICY_SYNC_URL: 'http://acme-policy-sync:3666',
      URL_OPA: 'http://acme-policy-sync:8181',
    });
    // core-backend without policy-sync and user-service: neither OPA nor user URLs.
    const alone = makeInstall({
      services: {
        'core-backend': { enabled: true },
        'user-service': { enabled: false },
        'policy-sync': { enabled: false },
      },
    });
    const core = config(alone, 'core-backend');
    expect(core).not.toHaveProperty('URL_OPA');
    expect(core).not.toHaveProperty('URL_USER');
    expect(core).toHaveProperty('URL_DB_PROXY', 'http://acme-db-proxy:3000');
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

  it('gives every install its own SYNC_CHANNEL', () => {
    const a = makeInstall();
    const b = { ...a, metadata: { ...a.metadata, name: 'other' } };
    const channelA = config(a, 'policy-sync').SYNC_CHANNEL;
    const channelB = config(b, 'policy-sync').SYNC_CHANNEL;
    expect(channelA).toBe('pelita:tenant-acme/acme:policy-sync:trigger');
    expect(channelB).not.toBe(channelA);
  });

  it('passes the Redis password as a setting of its own, never spliced into the URL', () => {
    const install = makeInstall({
      dependencies: {
        postgres: { url: 'postgres://pg:5432/pelita' },
        llm: { url: 'http://llm/v1', model: 'm' },
        redis: { url: 'redis://redis.db:6379/0', passwordSecretRef: { name: 'redis', key: 'pw' } },
      },
    });
    for (const service of ['user-service', 'policy-sync'] as const) {
      expect(config(install, service).REDIS_URL).toBe('redis://redis.db:6379/0');
      const env = renderDeployment(install, service)?.spec?.template.spec?.containers[0]?.env;
      expect(env).toContainEqual({
        name: 'REDIS_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'redis', key: 'pw' } },
      });
      expect(env?.some((e) => e.value?.includes('$('))).toBe(false);
    }
  });

  it('sets PORT for every service, from the catalog', () => {
    const install = makeInstall();
    expect(config(install, 'policy-sync')).toMatchObject({ PORT: '3666' });
    expect(config(install, 'policy-sync')).not.toHaveProperty('NODE_PORT');
    expect(config(install, 'summarizer')).toMatchObject({ PORT: '3000', TEMP_DIR: '/tmp' });
  });
});
