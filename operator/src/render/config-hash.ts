/**
 * The hash on each pod template of what pods read only at start and that is not in the template
 * itself: the ConfigMap loaded with envFrom, the OPA policies mounted at /policies, the
 * install's secrets revision and, for pods reading the platform Secret, its version. A change to
 * any of them changes the template, so pods roll.
 */
import { createHash } from 'node:crypto';

export const CONFIG_HASH_ANNOTATION = 'pelita.io/config-hash';

export interface HashedInputs {
  config: Readonly<Record<string, string>>;
  policies: Readonly<Record<string, string>>;
  secretsRevision: string | undefined;
  /** resourceVersion of the platform Secret, for pods that read keys of it. */
  platformSecretVersion?: string | undefined;
}

export function configHash(inputs: HashedInputs): string {
  // Sorted keys: the same content hashes the same whatever order it was built in.
  const sorted = (record: Readonly<Record<string, string>>) =>
    Object.keys(record)
      .sort()
      .map((key) => [key, record[key]]);
  const canonical = JSON.stringify([
    sorted(inputs.config),
    sorted(inputs.policies),
    inputs.secretsRevision ?? null,
    // Only when set: the hashes of pods that read no platform key stay what they were.
    ...(inputs.platformSecretVersion === undefined ? [] : [inputs.platformSecretVersion]),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}
