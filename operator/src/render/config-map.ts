import type { V1ConfigMap } from '@kubernetes/client-node';
import type { PlatformInstall, ServiceName } from '../crd/platform-install';
import { isEnabled } from './enabled-services';
import { childMeta } from './meta';
import { serviceSettings } from './settings';

/** The non-secret settings of an enabled service, loaded into its pods with envFrom. */
export function renderConfigMap(
  install: PlatformInstall,
  service: ServiceName,
): V1ConfigMap | null {
  if (!isEnabled(install, service)) return null;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: childMeta(install, service),
    data: serviceSettings(install, service).config,
  };
}
