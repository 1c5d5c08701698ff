/** The workload of each enabled service: a Deployment, or a StatefulSet with a claim per pod (the catalog says which). */
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { CATALOG, type ServiceName } from '../service-catalog';
import { isEnabled } from './enabled-services';
import { childMeta, childName, selectorLabels } from './meta';
import type { PolicyFiles } from './policies-config-map';
import { podTemplate } from './pod-template';
import { canonicalQuantity } from './quantity';

/** `replicas` unless an autoscaler owns it: then the field is left out, so apply never resets it. */
function replicas(install: PlatformInstall, service: ServiceName): { replicas?: number } {
  const settings = install.spec.services[service];
  return settings.autoscaling.enabled ? {} : { replicas: settings.replicas };
}

export function renderDeployment(
  install: PlatformInstall,
  service: ServiceName,
  policies: PolicyFiles = {},
): V1Deployment | null {
  if (!isEnabled(install, service) || CATALOG[service].workload !== 'Deployment') return null;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: childMeta(install, service),
    spec: {
      ...replicas(install, service),
      selector: { matchLabels: selectorLabels(install, service) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: podTemplate(install, service, policies),
    },
  };
}

export function renderStatefulSet(
  install: PlatformInstall,
  service: ServiceName,
  policies: PolicyFiles = {},
): V1StatefulSet | null {
  const settings = install.spec.services[service];
  const entry = CATALOG[service];
  if (!isEnabled(install, service) || entry.workload !== 'StatefulSet') return null;
  // Only services with a claim per pod have volume settings (the schema adds them from the catalog).
  const { volume } = settings;
  if (!volume) throw new Error(`${service} runs as a StatefulSet but has no volume settings`);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: childMeta(install, service),
    spec: {
      serviceName: childName(install, service),
      ...replicas(install, service),
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorLabels(install, service) },
      template: podTemplate(install, service, policies),
      persistentVolumeClaimRetentionPolicy: {
        whenDeleted: volume.retentionPolicy.whenDeleted,
        whenScaled: volume.retentionPolicy.whenScaled,
      },
      volumeClaimTemplates: entry.volumes
        .filter((v) => v.source === 'claim')
        .map((v) => ({
          metadata: { name: v.name },
          spec: {
            accessModes: ['ReadWriteOnce'],
            ...(volume.storageClassName ? { storageClassName: volume.storageClassName } : {}),
            resources: { requests: { storage: canonicalQuantity(volume.size) } },
          },
        })),
    },
  };
}

/** The workload of a service as its catalog entry says, or null when it does not run. */
export function renderWorkload(
  install: PlatformInstall,
  service: ServiceName,
  policies: PolicyFiles = {},
): V1Deployment | V1StatefulSet | null {
  return CATALOG[service].workload === 'StatefulSet'
    ? renderStatefulSet(install, service, policies)
    : renderDeployment(install, service, policies);
}
