/**
 * The install's platform Secret: the keys only the platform itself uses (signing key, service
 * tokens, OPA token, encryption key). The operator creates it when absent, from values generated
 * outside this pure module (see platform-keys.ts), and never changes an existing one.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { PlatformInstall, SecretKeyRef } from '../crd/platform-install';
import { childMeta } from './meta';

/** `spec.platformSecretRef.name`, else `<install>-platform`. */
export function platformSecretName(install: PlatformInstall): string {
  return install.spec.platformSecretRef?.name ?? `${install.metadata.name}-platform`;
}

export function platformKeyRef(install: PlatformInstall, key: string): SecretKeyRef {
  return { name: platformSecretName(install), key };
}

/**
 * The Secret to create when none exists: owned by the install (deleting the install deletes its
 * keys), values as `stringData`, which the apiserver stores base64-encoded in `data`.
 */
export function renderPlatformSecret(
  install: PlatformInstall,
  values: Readonly<Record<string, string>>,
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: childMeta(install, 'platform', { name: platformSecretName(install) }),
    type: 'Opaque',
    stringData: { ...values },
  };
}
