/** Names, labels, owner references and images shared by every child object. */
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION, KIND, type PlatformInstall } from '../crd/platform-install';
import { CATALOG, type ServiceName } from '../service-catalog';

export const MANAGED_BY = 'pelita-operator';

/** Deterministic child name: `<install>-<service>`. */
export function childName(install: PlatformInstall, service: string): string {
  return `${install.metadata.name}-${service}`;
}

export function selectorLabels(
  install: PlatformInstall,
  component: string,
): Record<string, string> {
  return {
    'app.kubernetes.io/name': component,
    'app.kubernetes.io/instance': install.metadata.name,
  };
}

export function labels(install: PlatformInstall, component: string): Record<string, string> {
  return {
    ...selectorLabels(install, component),
    'app.kubernetes.io/part-of': 'pelita',
    'app.kubernetes.io/managed-by': MANAGED_BY,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/version': install.spec.version,
    'pelita.io/tenant': install.spec.tenant.id,
  };
}

function ownerReference(install: PlatformInstall): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: install.metadata.name,
    uid: install.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Metadata of a child owned by the install; `name` defaults to `<install>-<component>`. */
export function childMeta(
  install: PlatformInstall,
  component: string,
  extra: { name?: string; annotations?: Record<string, string> } = {},
): V1ObjectMeta {
  return {
    name: extra.name ?? childName(install, component),
    namespace: install.metadata.namespace,
    labels: labels(install, component),
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
    ownerReferences: [ownerReference(install)],
  };
}

export function serviceImage(install: PlatformInstall, service: ServiceName): string {
  return `${install.spec.image.registry}/${CATALOG[service].image}:${install.spec.version}`;
}
