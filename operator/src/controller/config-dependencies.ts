/**
 * The ConfigMaps a workload's pods read (envFrom, env, volumes). A workload whose ConfigMap failed
 * to apply in the same reconcile is held back: applied anyway, its new config hash would roll the
 * pods onto the old settings, and once the ConfigMap is applied later the hash no longer changes,
 * so they would keep them.
 */
import type { KubernetesObject, V1PodTemplateSpec } from '@kubernetes/client-node';

export function configMapsReadBy(object: KubernetesObject): string[] {
  const spec = (object as { spec?: { template?: V1PodTemplateSpec } }).spec?.template?.spec;
  if (!spec) return [];
  const names = new Set<string>();
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef?.name) names.add(source.configMapRef.name);
    }
    for (const entry of container.env ?? []) {
      const ref = entry.valueFrom?.configMapKeyRef;
      if (ref?.name) names.add(ref.name);
    }
  }
  for (const volume of spec.volumes ?? []) {
    if (volume.configMap?.name) names.add(volume.configMap.name);
    for (const source of volume.projected?.sources ?? []) {
      if (source.configMap?.name) names.add(source.configMap.name);
    }
  }
  return [...names].sort();
}
