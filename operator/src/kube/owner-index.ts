/**
 * An informer cache's objects by the uid of their controller (the owner reference with
 * `controller: true`). A reconcile asks for one install's children: scanning the namespace
 * instead cost every reconcile a pass over every install's children there, so a cold start of
 * N installs in one namespace grew as N².
 */
import type { KubernetesObject } from '@kubernetes/client-node';

export class OwnerIndex {
  private readonly byOwner = new Map<string, Map<string, KubernetesObject>>();
  /** The owner each object is filed under, to move it when an update names another. */
  private readonly ownerOf = new Map<string, string>();

  /** Files an added or updated object (replacing what was filed under its name). */
  put(object: KubernetesObject): void {
    const key = keyOf(object);
    const owner = controllerUid(object);
    const previous = this.ownerOf.get(key);
    if (previous !== undefined && previous !== owner) this.unfile(previous, key);
    if (owner === undefined) return;
    let owned = this.byOwner.get(owner);
    if (!owned) {
      owned = new Map<string, KubernetesObject>();
      this.byOwner.set(owner, owned);
    }
    owned.set(key, object);
    this.ownerOf.set(key, owner);
  }

  remove(object: KubernetesObject): void {
    const key = keyOf(object);
    const owner = this.ownerOf.get(key);
    if (owner !== undefined) this.unfile(owner, key);
  }

  /** The objects whose controller is `ownerUid`, in `namespace`. */
  controlledBy(ownerUid: string, namespace: string): KubernetesObject[] {
    const owned = this.byOwner.get(ownerUid);
    if (!owned) return [];
    return [...owned.values()].filter((object) => object.metadata?.namespace === namespace);
  }

  private unfile(owner: string, key: string): void {
    const owned = this.byOwner.get(owner);
    owned?.delete(key);
    if (owned?.size === 0) this.byOwner.delete(owner);
    this.ownerOf.delete(key);
  }
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

function controllerUid(object: KubernetesObject): string | undefined {
  return object.metadata?.ownerReferences?.find((ref) => ref.controller === true)?.uid;
}
