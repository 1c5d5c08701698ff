import {
  parseSpec,
  SERVICE_NAMES,
  type PlatformInstall,
  type PlatformInstallSpecInput,
} from '../../src/crd/platform-install';

/** The least a valid spec holds: what the services enabled by default cannot start without. */
export const minimalSpec: PlatformInstallSpecInput = {
  tenant: { id: 'acme', displayName: 'ACME Corp' },
  license: {
    clientId: 'client-1',
    apiUrl: 'https://license.example.com',
    credentialsSecretRef: { name: 'acme-license' },
  },
  version: '1.2.3',
  dependencies: {
    postgres: { url: 'postgres://pg.db:5432/pelita' },
    redis: { url: 'redis://redis.db:6379/0' },
    opensearch: { url: 'https://opensearch.db:9200' },
    s3: {
      url: 'https://s3.example.com',
      bucket: 'acme',
      region: 'us-east-1',
      forcePathStyle: true,
      accessKeySecretRef: { name: 'acme-deps', key: 's3-id' },
      secretKeySecretRef: { name: 'acme-deps', key: 's3-secret' },
    },
    llm: { url: 'http://llm:8080/v1', model: 'gpt-x' },
  },
};

/** Every service enabled, the ones not built yet included. */
export const allEnabled = Object.fromEntries(
  SERVICE_NAMES.map((name) => [name, { enabled: true }]),
) as NonNullable<PlatformInstallSpecInput['services']>;

export function makeInstall(
  overrides: Partial<PlatformInstallSpecInput> = {},
  annotations?: Record<string, string>,
): PlatformInstall {
  return {
    apiVersion: 'pelita.io/v1alpha1',
    kind: 'PlatformInstall',
    metadata: {
      name: 'acme',
      namespace: 'tenant-acme',
      uid: 'uid-1234',
      generation: 1,
      ...(annotations ? { annotations } : {}),
    },
    spec: parseSpec({ ...minimalSpec, ...overrides }),
  };
}
