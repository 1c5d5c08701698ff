import {
  parseSpec,
  type PlatformInstall,
  type PlatformInstallSpecInput,
} from '../../src/crd/platform-install';

export const minimalSpec: PlatformInstallSpecInput = {
  tenant: { id: 'acme', displayName: 'ACME Corp' },
  license: {
    clientId: 'client-1',
    apiUrl: 'https://license.example.com',
    credentialsSecretRef: { name: 'acme-license' },
  },
  version: '1.2.3',
};

export function makeInstall(overrides: Partial<PlatformInstallSpecInput> = {}): PlatformInstall {
  return {
    apiVersion: 'pelita.io/v1alpha1',
    kind: 'PlatformInstall',
    metadata: { name: 'acme', namespace: 'tenant-acme', uid: 'uid-1234', generation: 1 },
    spec: parseSpec({ ...minimalSpec, ...overrides }),
  };
}
