/** The kinds the operator watches: PlatformInstalls and every kind of child it creates. */
import { GROUP, KIND, PLURAL, VERSION } from '../crd/platform-install';

export interface WatchedKind {
  apiVersion: string;
  kind: string;
  plural: string;
}

export const PLATFORM_INSTALL: WatchedKind = {
  apiVersion: `${GROUP}/${VERSION}`,
  kind: KIND,
  plural: PLURAL,
};

/** The Prometheus Operator's kind: watched and applied only while its CRD is installed. */
export const SERVICE_MONITOR: WatchedKind = {
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'ServiceMonitor',
  plural: 'servicemonitors',
};
export const SERVICE_MONITOR_CRD = 'servicemonitors.monitoring.coreos.com';

export const DEPLOYMENT: WatchedKind = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  plural: 'deployments',
};
export const STATEFUL_SET: WatchedKind = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
};

/** Children of every install, in the order they are applied (renderDesired's order is kept). */
export const CHILD_KINDS: readonly WatchedKind[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
  { apiVersion: 'v1', kind: 'Service', plural: 'services' },
  { apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts' },
  DEPLOYMENT,
  STATEFUL_SET,
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', plural: 'ingresses' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', plural: 'networkpolicies' },
];

/** `/api/v1/configmaps` or `/apis/apps/v1/namespaces/<ns>/deployments`: list and watch path. */
export function collectionPath(kind: WatchedKind, namespace?: string): string {
  const prefix = kind.apiVersion.includes('/')
    ? `/apis/${kind.apiVersion}`
    : `/api/${kind.apiVersion}`;
  return namespace
    ? `${prefix}/namespaces/${namespace}/${kind.plural}`
    : `${prefix}/${kind.plural}`;
}

/** What names a kind; enough to find its informer. */
export type KindRef = Pick<WatchedKind, 'apiVersion' | 'kind'>;

export function kindKey(kind: KindRef): string {
  return `${kind.apiVersion}/${kind.kind}`;
}
