/** The whole desired set of child objects for one install, in apply order. */
import type { KubernetesObject } from '@kubernetes/client-node';
import { SERVICE_NAMES, type PlatformInstall } from '../crd/platform-install';
import { renderConfigMap } from './config-map';
import { renderIngress } from './ingress';
import { renderNetworkPolicies } from './network-policy';
import { renderPodDisruptionBudget } from './pod-disruption-budget';
import { renderPoliciesConfigMap, type PolicyFiles } from './policies-config-map';
import { renderService } from './service';
import { renderServiceAccount } from './service-account';
import { renderServiceMonitor } from './service-monitor';
import { renderWorkload } from './workload';

export interface RenderInput {
  install: PlatformInstall;
  /** Rego files of `policies/`, keyed by file name. */
  policies: PolicyFiles;
}

export function renderDesired({ install, policies }: RenderInput): KubernetesObject[] {
  const objects: Array<KubernetesObject | null> = [renderPoliciesConfigMap(install, policies)];
  for (const service of SERVICE_NAMES) {
    objects.push(
      renderServiceAccount(install, service),
      renderConfigMap(install, service),
      renderService(install, service),
      renderWorkload(install, service, policies),
      renderPodDisruptionBudget(install, service),
    );
  }
  objects.push(...SERVICE_NAMES.map((service) => renderIngress(install, service)));
  objects.push(renderServiceMonitor(install));
  objects.push(...renderNetworkPolicies(install));
  return objects.filter((o): o is KubernetesObject => o !== null);
}

export { renderConfigMap } from './config-map';
export { renderIngress } from './ingress';
export { renderPodDisruptionBudget } from './pod-disruption-budget';
export { renderPoliciesConfigMap, type PolicyFiles } from './policies-config-map';
export { renderService } from './service';
export { renderServiceAccount } from './service-account';
export { renderServiceMonitor } from './service-monitor';
export { renderDeployment, renderStatefulSet, renderWorkload } from './workload';
export { CONFIG_HASH_ANNOTATION } from './config-hash';
export { SECRETS_REVISION_ANNOTATION } from './pod-template';
export { childName } from './meta';
