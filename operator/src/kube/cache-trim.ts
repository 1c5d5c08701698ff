/**
 * What the informer caches keep of an object: what a reconcile reads, not the whole object. With
 * a thousand installs of 27 children each the caches hold 27,000 objects, and the fields below
 * were most of their memory while no reconcile ever read them.
 *
 * Dropped from every object: `metadata.managedFields` (server-side apply's field ownership, often
 * larger than the object itself) and kubectl's last-applied-configuration annotation (the object
 * once more, as a string). Dropped from every kind but the workloads and PlatformInstalls: its
 * `status` (a Service's load balancer, a PodDisruptionBudget's counts: status.ts reads only the
 * workloads'; an install's status is the previous one to compare with). A CustomResourceDefinition
 * is watched only to know that it exists: its metadata is kept, not its schema.
 *
 * Kept whole: every other field, so the drift check (drift.ts) still compares each field the
 * operator sets, and the added-fields check (added-fields.ts) still sees every ConfigMap key and
 * env entry someone else added.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const KEEPS_STATUS = new Set(['Deployment', 'StatefulSet', 'PlatformInstall']);
const METADATA_ONLY = new Set(['CustomResourceDefinition']);

/** A copy of `object` without what no reconcile reads; `kind` is its informer's (list items lack one). */
export function trimForCache(kind: string, object: KubernetesObject): KubernetesObject {
  const { managedFields: _fields, ...metadata } = object.metadata ?? {};
  if (metadata.annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _applied, ...annotations } = metadata.annotations;
    metadata.annotations = annotations;
  }
  if (METADATA_ONLY.has(kind)) {
    return { apiVersion: object.apiVersion, kind: object.kind, metadata };
  }
  const { status: _status, ...rest } = object as KubernetesObject & { status?: unknown };
  const kept = KEEPS_STATUS.has(kind) ? object : rest;
  return { ...kept, metadata };
}
