import type { KubernetesObject } from '@kubernetes/client-node';
import { removeAddedFields } from '../../src/controller/added-fields';
import { needsApply, withDesiredHash } from '../../src/controller/drift';
import { trimForCache } from '../../src/kube/cache-trim';
import { renderDesired } from '../../src/render';
import { makeInstall } from './fixtures';

const policies = { 'authz.rego': 'package authz\n' };

/** What the API returns for a child the operator applied: its fields, and the server's. */
function asLive(desired: KubernetesObject): KubernetesObject {
  const applied = withDesiredHash(desired);
  return {
    ...structuredClone(applied),
    metadata: {
      ...structuredClone(applied.metadata),
      uid: `uid-${applied.metadata?.name}`,
      resourceVersion: '7',
      creationTimestamp: '2026-11-28T12:00:00Z' as unknown as Date,
      managedFields: [
        {
          manager: 'pelita-operator',
          operation: 'Apply',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': {} } },
        },
      ],
      annotations: {
        ...applied.metadata?.annotations,
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied),
      },
    },
    status: { observedGeneration: 1, replicas: 1, readyReplicas: 1 },
  } as KubernetesObject;
}

describe('trimForCache', () => {
  const desired = renderDesired({ install: makeInstall(), policies });

  it('keeps every field the drift check compares: a trimmed settled child needs no apply', () => {
    expect(desired.length).toBeGreaterThan(20);
    for (const object of desired) {
      const trimmed = trimForCache(object.kind ?? '', asLive(object));
      expect({
        name: object.metadata?.name,
        apply: needsApply(withDesiredHash(object), trimmed),
      }).toEqual({ name: object.metadata?.name, apply: false });
    }
  });

  it('keeps what someone else added, so it is still removed', () => {
    const configMap = desired.find((o) => o.kind === 'ConfigMap')!;
    const live = asLive(configMap) as KubernetesObject & { data: Record<string, string> };
    live.data = { ...live.data, ADDED_BY_HAND: 'yes' };
    const trimmed = trimForCache('ConfigMap', live);
    expect(removeAddedFields(configMap, trimmed)).toEqual(removeAddedFields(configMap, live));
    expect(removeAddedFields(configMap, trimmed)).not.toEqual([]);
  });

  it('drops managedFields and the last-applied annotation, keeps the other metadata', () => {
    const live = asLive(desired[0]!);
    const trimmed = trimForCache('ConfigMap', live);
    expect(trimmed.metadata?.managedFields).toBeUndefined();
    expect(trimmed.metadata?.annotations).not.toHaveProperty([
      'kubectl.kubernetes.io/last-applied-configuration',
    ]);
    const { managedFields: _m, annotations: _a, ...rest } = live.metadata!;
    expect(trimmed.metadata).toMatchObject(rest);
    expect(live.metadata?.managedFields).toHaveLength(1); // the original is left as it was
  });

  it('keeps the status of workloads and installs only', () => {
    const status = (kind: string) =>
      (trimForCache(kind, asLive(desired[0]!)) as { status?: unknown }).status;
    expect(status('Deployment')).toEqual({ observedGeneration: 1, replicas: 1, readyReplicas: 1 });
    expect(status('StatefulSet')).toBeDefined();
    expect(status('PlatformInstall')).toBeDefined();
    expect(status('Service')).toBeUndefined();
    expect(status('PodDisruptionBudget')).toBeUndefined();
  });

  it('keeps only the metadata of a CustomResourceDefinition (watched for its existence)', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'servicemonitors.monitoring.coreos.com', uid: 'u', resourceVersion: '3' },
      spec: { group: 'monitoring.coreos.com', versions: [{ name: 'v1' }] },
    };
    expect(trimForCache('CustomResourceDefinition', crd)).toEqual({
      apiVersion: crd.apiVersion,
      kind: crd.kind,
      metadata: crd.metadata,
    });
  });
});
