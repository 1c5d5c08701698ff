/** Deployment of each enabled service; ocr-worker runs as a StatefulSet with a work volume per pod. */
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import type { PlatformInstall, ServiceName } from '../crd/platform-install';
import { childMeta, childName, selectorLabels } from './meta';
import { podTemplate } from './pod-template';

export function renderDeployment(
  install: PlatformInstall,
  service: ServiceName,
): V1Deployment | null {
  const settings = install.spec.services[service];
  if (!settings.enabled || service === 'ocr-worker') return null;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: childMeta(install, service),
    spec: {
      replicas: settings.replicas,
      selector: { matchLabels: selectorLabels(install, service) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: podTemplate(install, service),
    },
  };
}

export const OCR_WORK_VOLUME_SIZE = '10Gi';

export function renderOcrWorkerStatefulSet(install: PlatformInstall): V1StatefulSet | null {
  const settings = install.spec.services['ocr-worker'];
  if (!settings.enabled) return null;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: childMeta(install, 'ocr-worker'),
    spec: {
      serviceName: childName(install, 'ocr-worker'),
      replicas: settings.replicas,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorLabels(install, 'ocr-worker') },
      template: podTemplate(install, 'ocr-worker'),
      volumeClaimTemplates: [
        {
          metadata: { name: 'work' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: OCR_WORK_VOLUME_SIZE } },
          },
        },
      ],
    },
  };
}
