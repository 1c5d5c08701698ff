import type { V1PodDisruptionBudget } from '@kubernetes/client-node';
import type { PlatformInstall, ServiceName } from '../crd/platform-install';
import { isEnabled } from './enabled-services';
import { childMeta, selectorLabels } from './meta';

/** A PDB keeps one pod down at most during voluntary disruption; pointless below two replicas. */
export function renderPodDisruptionBudget(
  install: PlatformInstall,
  service: ServiceName,
): V1PodDisruptionBudget | null {
  const settings = install.spec.services[service];
  // Under an autoscaler the count varies: keep the budget (harmless while it runs one pod).
  if (!isEnabled(install, service)) return null;
  if (!settings.autoscaling.enabled && settings.replicas <= 1) return null;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: childMeta(install, service),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(install, service) } },
  };
}
