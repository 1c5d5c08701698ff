import type { V1Service } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { servicePorts, type ServiceName } from '../service-catalog';
import { isEnabled } from './enabled-services';
import { childMeta, selectorLabels } from './meta';

/** ClusterIP Service of an enabled service; policy-sync also exposes its OPA sidecar. */
export function renderService(install: PlatformInstall, service: ServiceName): V1Service | null {
  if (!isEnabled(install, service)) return null;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMeta(install, service),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(install, service),
      ports: servicePorts(service).map(({ name, port }) => ({
        name,
        port,
        targetPort: name,
        protocol: 'TCP',
      })),
    },
  };
}
