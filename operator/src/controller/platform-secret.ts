/**
 * The install's platform Secret in a reconcile: created with generated keys when absent, read
 * (never changed) when present, and checked for the keys the desired pods refer to.
 */
import { createPublicKey } from 'node:crypto';
import type { KubernetesObject, V1PodTemplateSpec, V1Secret } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { apiStatus, type KubeClient } from '../kube/client';
import { generatePlatformKeys } from '../platform-keys';
import { platformSecretName, renderPlatformSecret } from '../render/platform-secret';

export interface PlatformSecretState {
  /** Keys the Secret holds. */
  keys: ReadonlySet<string>;
  /** Its `jwt-public-key`, else derived from `jwt-private-key`; undefined when it has neither. */
  jwtPublicKey: string | undefined;
  /** Its resourceVersion: changes when it is edited or replaced. */
  version: string | undefined;
}

export async function ensurePlatformSecret(
  client: Pick<KubeClient, 'readSecret' | 'createSecret'>,
  install: PlatformInstall,
  generate: () => Record<string, string> = generatePlatformKeys,
): Promise<PlatformSecretState> {
  const { namespace } = install.metadata;
  const name = platformSecretName(install);
  let secret = await client.readSecret(namespace, name);
  if (!secret) {
    try {
      secret = await client.createSecret(namespace, renderPlatformSecret(install, generate()));
    } catch (err) {
      // Created meanwhile (by a person, or by a previous leader): theirs stands, ours is dropped.
      if (apiStatus(err) !== 409) throw err;
      secret = await client.readSecret(namespace, name);
    }
  }
  return stateOf(secret);
}

function stateOf(secret: V1Secret | undefined): PlatformSecretState {
  const data = secret?.data ?? {};
  const text = (key: string) => {
    const value = data[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
  return {
    keys: new Set(Object.keys(data)),
    jwtPublicKey: text('jwt-public-key') ?? publicKeyOf(text('jwt-private-key')),
    version: secret?.metadata?.resourceVersion,
  };
}

function publicKeyOf(privateKey: string | undefined): string | undefined {
  if (!privateKey) return undefined;
  try {
    return createPublicKey(privateKey.replace(/\\n/g, '\n'))
      .export({ type: 'spki', format: 'pem' })
      .toString();
  } catch {
    // Not a key: the user service refuses it at its start and says so; nothing to publish.
    return undefined;
  }
}

/**
 * Keys of the platform Secret the desired pods refer to that it does not hold: such a pod would
 * never start (CreateContainerConfigError), so the install reports them instead.
 */
export function missingPlatformKeys(
  desired: readonly KubernetesObject[],
  secretName: string,
  held: ReadonlySet<string>,
): string[] {
  const referred = new Set<string>();
  for (const object of desired) {
    const template = (object as { spec?: { template?: V1PodTemplateSpec } }).spec?.template;
    for (const container of template?.spec?.containers ?? []) {
      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef;
        if (ref?.name === secretName) referred.add(ref.key);
      }
    }
  }
  return [...referred].filter((key) => !held.has(key)).sort();
}
