import type { V1ServiceAccount } from '@kubernetes/client-node';
import type { PlatformInstall, ServiceName } from '../crd/platform-install';
import { isEnabled } from './enabled-services';
import { childMeta } from './meta';

/** One ServiceAccount per enabled service; none of them talks to the Kubernetes API. */
export function renderServiceAccount(
  install: PlatformInstall,
  service: ServiceName,
): V1ServiceAccount | null {
  if (!isEnabled(install, service)) return null;
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: childMeta(install, service),
    automountServiceAccountToken: false,
  };
}
