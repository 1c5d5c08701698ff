import type { V1Service } from '@kubernetes/client-node';
import type { PlatformInstall, ServiceName } from '../crd/platform-install';
import { childMeta, selectorLabels } from './meta';
import { OPA_PORT, servicePort } from './settings';

/** ClusterIP Service of an enabled service; policy-sync also exposes its OPA sidecar. */
export function renderService(install: PlatformInstall, service: ServiceName): V1Service | null {
  if (!install.spec.services[service].enabled) return null;
  const port = servicePort(service);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMeta(install, service),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(install, service),
      ports: [
        { name: 'http', port, targetPort: 'http', protocol: 'TCP' },
        ...(service === 'policy-sync'
          ? [{ name: 'opa', port: OPA_PORT, targetPort: 'opa', protocol: 'TCP' }]
          : []),
      ],
    },
  };
}
