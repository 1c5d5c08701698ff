import type { KubernetesObject } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { childMeta, MANAGED_BY } from './meta';

/** A Prometheus Operator ServiceMonitor (monitoring.coreos.com/v1); no client type exists for it. */
export interface ServiceMonitor extends KubernetesObject {
  apiVersion: 'monitoring.coreos.com/v1';
  kind: 'ServiceMonitor';
  spec: {
    selector: { matchLabels: Record<string, string> };
    namespaceSelector: { matchNames: string[] };
    endpoints: Array<{ port: string; path: string; interval: string }>;
  };
}

/** One ServiceMonitor selecting every service of the install; null when disabled. */
export function renderServiceMonitor(install: PlatformInstall): ServiceMonitor | null {
  const { serviceMonitor } = install.spec.observability;
  if (!serviceMonitor.enabled) return null;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: childMeta(install, 'metrics', { name: install.metadata.name }),
    spec: {
      selector: {
        matchLabels: {
          'app.kubernetes.io/instance': install.metadata.name,
          'app.kubernetes.io/managed-by': MANAGED_BY,
        },
      },
      namespaceSelector: { matchNames: [install.metadata.namespace] },
      endpoints: [{ port: 'http', path: '/metrics', interval: serviceMonitor.interval }],
    },
  };
}
