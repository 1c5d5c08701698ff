import type { KubernetesObject } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { metricsPortNames } from '../service-catalog';
import { childMeta, MANAGED_BY } from './meta';

interface Relabeling {
  sourceLabels: string[];
  targetLabel: string;
}

interface Endpoint {
  port: string;
  path: string;
  interval: string;
  relabelings: Relabeling[];
}

/** A Prometheus Operator ServiceMonitor (monitoring.coreos.com/v1); no client type exists for it. */
export interface ServiceMonitor extends KubernetesObject {
  apiVersion: 'monitoring.coreos.com/v1';
  kind: 'ServiceMonitor';
  spec: {
    selector: { matchLabels: Record<string, string> };
    namespaceSelector: { matchNames: string[] };
    endpoints: Endpoint[];
  };
}

/** A Service label, as the relabeling source Prometheus gives it (`.`, `/`, `-` become `_`). */
const serviceLabel = (name: string) =>
  `__meta_kubernetes_service_label_${name.replace(/[^a-zA-Z0-9]/g, '_')}`;

/**
 * The labels the chart's dashboards and alerts select by, copied from each Service's labels:
 * `install` and `tenant` tell tenants apart however the Services are named; `component` names
 * the service.
 */
const TENANT_LABELS: Relabeling[] = [
  { sourceLabels: [serviceLabel('app.kubernetes.io/instance')], targetLabel: 'install' },
  { sourceLabels: [serviceLabel('pelita.io/tenant')], targetLabel: 'tenant' },
  { sourceLabels: [serviceLabel('app.kubernetes.io/component')], targetLabel: 'component' },
];

/**
 * One ServiceMonitor selecting every service of the install, with an endpoint per metrics port
 * (`http`; `opa`, policy-sync's OPA sidecar, labelled as policy-sync — Prometheus Operator's
 * `container="opa"` and `endpoint="opa"` tell its series apart); null when disabled.
 */
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
      // One endpoint per metrics port name; a Service without that port has no target for it
      // (only policy-sync's has `opa`, its OPA sidecar's metrics).
      endpoints: metricsPortNames().map((port) => ({
        port,
        path: '/metrics',
        interval: serviceMonitor.interval,
        relabelings: TENANT_LABELS,
      })),
    },
  };
}
