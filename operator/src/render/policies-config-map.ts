import type { V1ConfigMap } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { isEnabled } from './enabled-services';
import { childMeta, childName } from './meta';

/** Rego sources keyed by file name; the caller reads them from `policies/*.rego`. */
export type PolicyFiles = Readonly<Record<string, string>>;

export function policiesConfigMapName(install: PlatformInstall): string {
  return `${childName(install, 'policy-sync')}-policies`;
}

/** The OPA policies mounted at /policies in the policy-sync pod; tests (`*_test.rego`) are left out. */
export function renderPoliciesConfigMap(
  install: PlatformInstall,
  policies: PolicyFiles,
): V1ConfigMap | null {
  if (!isEnabled(install, 'policy-sync')) return null;
  const data = Object.fromEntries(
    Object.entries(policies)
      .filter(([file]) => file.endsWith('.rego') && !file.endsWith('_test.rego'))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: childMeta(install, 'policy-sync', { name: policiesConfigMapName(install) }),
    data,
  };
}
