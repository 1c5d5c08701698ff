import type { KubernetesObject } from '@kubernetes/client-node';
import { withDesiredHash } from '../../src/controller/drift';
import { plan, type LiveView } from '../../src/controller/plan';
import { kindKey, type KindRef, type WatchedKind } from '../../src/kube/kinds';

const CONFIG_MAP: WatchedKind = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const SERVICE: WatchedKind = { apiVersion: 'v1', kind: 'Service', plural: 'services' };
const OWNER = 'uid-acme';

/** A fake of the informer caches: objects by kind, namespace and name, as the API returns them. */
function fakeView(objects: Array<{ kind: WatchedKind; object: KubernetesObject }>): LiveView {
  const inNamespace = (kind: KindRef, namespace: string) =>
    objects
      .filter(
        (o) => kindKey(o.kind) === kindKey(kind) && o.object.metadata?.namespace === namespace,
      )
      .map((o) => o.object);
  return {
    live: (kind, namespace, name) =>
      inNamespace(kind, namespace).find((o) => o.metadata?.name === name),
    children: (kind, namespace) => inNamespace(kind, namespace), // plan filters by controller
    childKinds: () => [CONFIG_MAP, SERVICE],
  };
}

const configMap = (
  name: string,
  data: Record<string, string>,
): KubernetesObject & { data: object } => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 't' },
  data,
});

/** What the API holds after we applied `desired`: hash-stamped, owned, without apiVersion/kind. */
function appliedBy(
  owner: string,
  desired: KubernetesObject,
  uid = `uid-${desired.metadata?.name}`,
) {
  const { apiVersion: _a, kind: _k, ...live } = withDesiredHash(desired);
  return {
    ...live,
    metadata: {
      ...live.metadata,
      uid,
      ownerReferences: [
        {
          apiVersion: 'pelita.io/v1alpha1',
          kind: 'PlatformInstall',
          name: 'acme',
          uid: owner,
          controller: true,
        },
      ],
    },
  };
}

const names = (objects: KubernetesObject[]) => objects.map((o) => o.metadata?.name);

describe('plan', () => {
  it('applies every desired object the cluster lacks, stamped with its hash', () => {
    const desired = [configMap('a', { X: '1' }), configMap('b', { Y: '2' })];
    const decided = plan({ desired, namespace: 't', ownerUid: OWNER, view: fakeView([]) });
    expect(names(decided.apply)).toEqual(['a', 'b']);
    expect(decided.apply[0]?.metadata?.annotations?.['pelita.io/desired-hash']).toMatch(
      /^[0-9a-f]{64}$/,
    );
    expect(decided.prune).toEqual([]);
  });

  it('applies nothing for a settled install', () => {
    const desired = [configMap('a', { X: '1' })];
    const view = fakeView([{ kind: CONFIG_MAP, object: appliedBy(OWNER, desired[0]!) }]);
    expect(plan({ desired, namespace: 't', ownerUid: OWNER, view })).toEqual({
      apply: [],
      prune: [],
      trim: [],
    });
  });

  it('removes a key someone added to a settled child, without re-applying it', () => {
    const desired = [configMap('a', { X: '1' })];
    const live: KubernetesObject = {
      ...appliedBy(OWNER, desired[0]!),
      data: { X: '1', ADDED: 'by hand' },
    } as KubernetesObject;
    const view = fakeView([{ kind: CONFIG_MAP, object: live }]);
    const decided = plan({ desired, namespace: 't', ownerUid: OWNER, view });
    expect(decided.apply).toEqual([]);
    expect(decided.trim).toEqual([
      {
        kind: { apiVersion: 'v1', kind: 'ConfigMap' },
        name: 'a',
        patch: [
          { op: 'test', path: '/data/ADDED', value: 'by hand' },
          { op: 'remove', path: '/data/ADDED' },
        ],
      },
    ]);
  });

  it('applies only what changed: a removed key counts as a change', () => {
    const before = [configMap('a', { X: '1', Y: '2' }), configMap('b', { Z: '3' })];
    const view = fakeView(
      before.map((object) => ({ kind: CONFIG_MAP, object: appliedBy(OWNER, object) })),
    );
    const after = [configMap('a', { X: '1' }), before[1]!];
    expect(names(plan({ desired: after, namespace: 't', ownerUid: OWNER, view }).apply)).toEqual([
      'a',
    ]);
  });

  it('prunes owned children no longer desired, with their uid, and nothing it does not control', () => {
    const view = fakeView([
      { kind: CONFIG_MAP, object: appliedBy(OWNER, configMap('kept', {})) },
      { kind: CONFIG_MAP, object: appliedBy(OWNER, configMap('gone', {}), 'uid-gone') },
      { kind: CONFIG_MAP, object: appliedBy('uid-other-install', configMap('foreign', {})) },
      { kind: SERVICE, object: { metadata: { name: 'unowned', namespace: 't' } } },
      {
        kind: CONFIG_MAP,
        object: appliedBy(OWNER, {
          ...configMap('elsewhere', {}),
          metadata: { name: 'elsewhere', namespace: 'u' },
        }),
      },
    ]);
    const decided = plan({
      desired: [configMap('kept', {})],
      namespace: 't',
      ownerUid: OWNER,
      view,
    });
    expect(decided.apply).toEqual([]);
    expect(decided.prune).toEqual([{ kind: CONFIG_MAP, name: 'gone', uid: 'uid-gone' }]);
  });

  it('keeps a desired object of the same name but another kind apart', () => {
    const view = fakeView([
      {
        kind: SERVICE,
        object: appliedBy(OWNER, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'a', namespace: 't' },
        }),
      },
    ]);
    const decided = plan({ desired: [configMap('a', {})], namespace: 't', ownerUid: OWNER, view });
    expect(names(decided.apply)).toEqual(['a']);
    expect(decided.prune).toEqual([{ kind: SERVICE, name: 'a', uid: 'uid-a' }]);
  });
});
