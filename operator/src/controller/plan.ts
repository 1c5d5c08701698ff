/**
 * The reconcile decision, pure: from the desired children and what the caches hold, which objects
 * to apply and which owned children to delete. The reconciler only carries the plan out.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { kindKey, type KindRef, type WatchedKind } from '../kube/kinds';
import { removeAddedFields, type JsonPatchOp } from './added-fields';
import { needsApply, withDesiredHash } from './drift';

/** The part of the cluster a plan reads (the controller's informer caches, or a fake). */
export interface LiveView {
  live(kind: KindRef, namespace: string, name: string): KubernetesObject | undefined;
  /** The children of `kind` in `namespace` whose controller is `ownerUid`. */
  children(kind: WatchedKind, namespace: string, ownerUid: string): readonly KubernetesObject[];
  /** Kinds whose children are pruned. */
  childKinds(): readonly WatchedKind[];
}

export interface PlanInput {
  desired: readonly KubernetesObject[];
  /** The install's namespace and uid: only children it controls are ever pruned. */
  namespace: string;
  ownerUid: string;
  view: LiveView;
}

export interface Prune {
  kind: WatchedKind;
  name: string;
  uid: string | undefined;
}

/** Fields someone else added to a child, and the JSON patch removing them (added-fields.ts). */
export interface Trim {
  kind: KindRef;
  name: string;
  patch: JsonPatchOp[];
}

export interface Plan {
  /** Desired objects, stamped with their hash, that are missing or differ from the cluster. */
  apply: KubernetesObject[];
  prune: Prune[];
  trim: Trim[];
}

export function plan({ desired, namespace, ownerUid, view }: PlanInput): Plan {
  const apply = desired
    .map((object) => withDesiredHash(object))
    .filter((object) =>
      needsApply(object, view.live(kindOf(object), namespace, object.metadata?.name ?? '')),
    );
  const trim = desired.flatMap((object): Trim[] => {
    const kind = kindOf(object);
    const name = object.metadata?.name ?? '';
    const patch = removeAddedFields(object, view.live(kind, namespace, name));
    return patch.length > 0 ? [{ kind, name, patch }] : [];
  });
  const wanted = new Set(desired.map((o) => refKey(kindOf(o), o.metadata?.name ?? '')));
  const prune: Prune[] = [];
  for (const kind of view.childKinds()) {
    for (const child of view.children(kind, namespace, ownerUid)) {
      const name = child.metadata?.name ?? '';
      if (isControlledBy(child, ownerUid) && !wanted.has(refKey(kind, name))) {
        prune.push({ kind, name, uid: child.metadata?.uid });
      }
    }
  }
  return { apply, prune, trim };
}

export function kindOf(object: KubernetesObject): KindRef {
  return { apiVersion: object.apiVersion ?? '', kind: object.kind ?? '' };
}

export function refKey(kind: KindRef, name: string): string {
  return `${kindKey(kind)}/${name}`;
}

function isControlledBy(object: KubernetesObject, uid: string): boolean {
  return (object.metadata?.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.uid === uid,
  );
}
