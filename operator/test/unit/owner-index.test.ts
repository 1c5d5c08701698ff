import type { KubernetesObject } from '@kubernetes/client-node';
import { OwnerIndex } from '../../src/kube/owner-index';

const child = (
  name: string,
  owner: string | undefined,
  namespace = 't',
  controller = true,
): KubernetesObject => ({
  metadata: {
    name,
    namespace,
    ownerReferences: owner
      ? [
          {
            apiVersion: 'pelita.io/v1alpha1',
            kind: 'PlatformInstall',
            name: 'x',
            uid: owner,
            controller,
          },
        ]
      : undefined,
  },
});

const names = (objects: KubernetesObject[]) => objects.map((o) => o.metadata?.name).sort();

describe('OwnerIndex', () => {
  it('finds the children of one controller, in one namespace', () => {
    const index = new OwnerIndex();
    index.put(child('a-1', 'a'));
    index.put(child('a-2', 'a'));
    index.put(child('b-1', 'b'));
    index.put(child('a-elsewhere', 'a', 'other'));
    expect(names(index.controlledBy('a', 't'))).toEqual(['a-1', 'a-2']);
    expect(names(index.controlledBy('a', 'other'))).toEqual(['a-elsewhere']);
    expect(index.controlledBy('c', 't')).toEqual([]);
  });

  it('ignores owners that are not the controller, and objects without one', () => {
    const index = new OwnerIndex();
    index.put(child('owned-only', 'a', 't', false));
    index.put(child('orphan', undefined));
    expect(index.controlledBy('a', 't')).toEqual([]);
  });

  it('replaces an updated object, moves it when its controller changes, drops it when deleted', () => {
    const index = new OwnerIndex();
    index.put(child('x', 'a'));
    const updated = child('x', 'a');
    index.put(updated);
    expect(index.controlledBy('a', 't')).toEqual([updated]);
    index.put(child('x', 'b'));
    expect(index.controlledBy('a', 't')).toEqual([]);
    expect(names(index.controlledBy('b', 't'))).toEqual(['x']);
    index.put(child('x', undefined)); // its owner reference removed: no longer anyone's child
    expect(index.controlledBy('b', 't')).toEqual([]);
    index.put(child('y', 'b'));
    index.remove(child('y', 'b'));
    expect(index.controlledBy('b', 't')).toEqual([]);
  });
});
