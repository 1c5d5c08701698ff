import type { CoreV1Event, KubernetesObject } from '@kubernetes/client-node';
import { createLogger } from '@pelita/kit';
import { DATA_FINALIZER } from '../../src/controller/install-deletion';
import { Reconciler, type ClusterView, type RawInstall } from '../../src/controller/reconciler';
import type { PlatformInstallStatus } from '../../src/crd/platform-install';
import type { KubeClient } from '../../src/kube/client';
import { CHILD_KINDS } from '../../src/kube/kinds';
import { platformSecretKeys } from '../../src/service-catalog';
import { minimalSpec } from './fixtures';

/** A client that accepts every write and records the status writes and Events. */
function recordingClient() {
  const statuses: PlatformInstallStatus[] = [];
  const events: CoreV1Event[] = [];
  const patches: Array<{ name: string; patch: readonly object[] }> = [];
  const removed: Array<{ name: string; propagation: string | undefined }> = [];
  const client = {
    patchJson: (ref: { name: string }, patch: readonly object[]) => {
      patches.push({ name: ref.name, patch });
      return Promise.resolve();
    },
    apply: <T extends KubernetesObject>(object: T) => Promise.resolve(object),
    remove: (ref: { name: string }, propagation?: string) => {
      removed.push({ name: ref.name, propagation });
      return Promise.resolve();
    },
    applyStatus: (_target: unknown, _ref: unknown, status: PlatformInstallStatus) => {
      statuses.push(structuredClone(status));
      return Promise.resolve();
    },
    createEvent: (_ns: string, event: CoreV1Event) => {
      events.push(event);
      return Promise.resolve();
    },
    // A platform Secret that already holds every key.
    readSecret: () =>
      Promise.resolve({
        data: Object.fromEntries(platformSecretKeys().map((key) => [key, ''])),
      }),
  };
  return { client: client as unknown as KubeClient, statuses, events, patches, removed };
}

/** Caches that never catch up: the install keeps the status it had before any write. */
function staleView(install: RawInstall): ClusterView {
  return {
    install: () => install,
    allInstalls: () => Promise.resolve([install]),
    live: () => undefined,
    children: () => [],
    childKinds: () => CHILD_KINDS,
    serviceMonitorsAvailable: () => true,
  };
}

const install: RawInstall = {
  apiVersion: 'pelita.io/v1alpha1',
  kind: 'PlatformInstall',
  metadata: { name: 'acme', namespace: 't', uid: 'uid-1', generation: 1 },
  spec: minimalSpec,
};

describe('Reconciler status writes', () => {
  it('compares with the status it last wrote, not a stale cache: no doubled writes or Events', async () => {
    const recorded = recordingClient();
    let now = new Date('2026-11-22T10:00:00Z');
    const reconciler = new Reconciler({
      client: recorded.client,
      view: staleView(install),
      policies: {},
      logger: createLogger({ name: 'test', level: 'silent' }),
      identity: 'op-0',
      now: () => now,
    });
    await reconciler.reconcile('t/acme');
    expect(recorded.statuses).toHaveLength(1);
    const eventsAfterFirst = recorded.events.length;
    expect(eventsAfterFirst).toBeGreaterThan(0);

    now = new Date('2026-11-22T10:01:00Z');
    await reconciler.reconcile('t/acme'); // the cache still shows no status
    expect(recorded.statuses).toHaveLength(1);
    expect(recorded.events).toHaveLength(eventsAfterFirst);
  });

  it('keeps the transition time of a condition that did not flip, though the cache is stale', async () => {
    const recorded = recordingClient();
    let now = new Date('2026-11-22T10:00:00Z');
    const view = staleView(install);
    const reconciler = new Reconciler({
      client: recorded.client,
      view,
      policies: {},
      logger: createLogger({ name: 'test', level: 'silent' }),
      identity: 'op-0',
      now: () => now,
    });
    await reconciler.reconcile('t/acme');
    // A paused install changes Progressing only; Ready keeps its first transition time.
    now = new Date('2026-11-22T10:05:00Z');
    install.metadata!.annotations = { 'pelita.io/paused': 'true' };
    try {
      await reconciler.reconcile('t/acme');
    } finally {
      delete install.metadata!.annotations;
    }
    expect(recorded.statuses).toHaveLength(2);
    const ready = recorded.statuses[1]!.conditions.find((c) => c.type === 'Ready');
    expect(ready?.lastTransitionTime).toBe('2026-11-22T10:00:00Z');
    const progressing = recorded.statuses[1]!.conditions.find((c) => c.type === 'Progressing');
    expect(progressing?.lastTransitionTime).toBe('2026-11-22T10:05:00Z');
  });
});

describe('Reconciler finalizer', () => {
  const reconcilerFor = (recorded: ReturnType<typeof recordingClient>, view: ClusterView) =>
    new Reconciler({
      client: recorded.client,
      view,
      policies: {},
      logger: createLogger({ name: 'test', level: 'silent' }),
      identity: 'op-0',
    });

  it('adds the finalizer to an install without it, guarded by its resourceVersion', async () => {
    const recorded = recordingClient();
    const stored = { ...install, metadata: { ...install.metadata, resourceVersion: '7' } };
    await reconcilerFor(recorded, staleView(stored)).reconcile('t/acme');
    expect(recorded.patches[0]).toEqual({
      name: 'acme',
      patch: [
        { op: 'test', path: '/metadata/resourceVersion', value: '7' },
        { op: 'add', path: '/metadata/finalizers', value: [DATA_FINALIZER] },
      ],
    });
  });

  it('leaves an install that has it alone (no patch)', async () => {
    const recorded = recordingClient();
    const stored = { ...install, metadata: { ...install.metadata, finalizers: [DATA_FINALIZER] } };
    await reconcilerFor(recorded, staleView(stored)).reconcile('t/acme');
    expect(recorded.patches).toEqual([]);
  });

  it('with Retain (the default) removes nothing, says what it kept and removes the finalizer', async () => {
    const recorded = recordingClient();
    const deleting: RawInstall = {
      ...install,
      metadata: {
        ...install.metadata,
        deletionTimestamp: new Date(),
        finalizers: ['other.example/keep', DATA_FINALIZER],
      },
      spec: minimalSpec,
    };
    await reconcilerFor(recorded, staleView(deleting)).reconcile('t/acme');
    const retained = recorded.events.find((e) => e.reason === 'DataRetained');
    expect(retained?.type).toBe('Normal');
    expect(retained?.message).toContain('OpenSearch indexes pelita-t-acme-knowledge, ');
    expect(retained?.message).toContain('Redis keys under "pelita:t/acme:"');
    expect(retained?.message).toContain('objects in bucket acme');
    expect(recorded.patches).toEqual([
      {
        name: 'acme',
        patch: [
          { op: 'test', path: '/metadata/finalizers/1', value: DATA_FINALIZER },
          { op: 'remove', path: '/metadata/finalizers/1' },
        ],
      },
    ]);
  });

  it('with Delete first removes the workloads with their pods, and waits for them', async () => {
    const recorded = recordingClient();
    const deleting: RawInstall = {
      ...install,
      metadata: {
        ...install.metadata,
        deletionTimestamp: new Date(),
        finalizers: [DATA_FINALIZER],
      },
      spec: { ...minimalSpec, deletionPolicy: 'Delete' },
    };
    const owned = (name: string, deletionTimestamp?: Date) => ({
      metadata: {
        name,
        namespace: 't',
        uid: `uid-${name}`,
        ...(deletionTimestamp ? { deletionTimestamp } : {}),
        ownerReferences: [
          {
            apiVersion: 'pelita.io/v1alpha1',
            kind: 'PlatformInstall',
            name: 'acme',
            uid: 'uid-1',
            controller: true,
          },
        ],
      },
    });
    const view: ClusterView = {
      ...staleView(deleting),
      children: (kind) =>
        kind.kind === 'Deployment'
          ? [owned('acme-db-proxy'), owned('acme-user-service', new Date('2026-11-22T10:00:00Z'))]
          : [],
    };
    await reconcilerFor(recorded, view).reconcile('t/acme');
    expect(recorded.removed).toEqual([{ name: 'acme-db-proxy', propagation: 'Foreground' }]);
    expect(recorded.patches).toEqual([]);
    const progressing = recorded.statuses.at(-1)?.conditions.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'True', reason: 'DeletingData' });
    expect(progressing?.message).toContain('acme-user-service');
  });

  it('with Delete waits while another install cannot be read, Degraded, finalizer kept', async () => {
    const recorded = recordingClient();
    const deleting: RawInstall = {
      ...install,
      metadata: {
        ...install.metadata,
        deletionTimestamp: new Date(),
        finalizers: [DATA_FINALIZER],
      },
      spec: { ...minimalSpec, deletionPolicy: 'Delete' },
    };
    const broken: RawInstall = {
      ...install,
      metadata: { name: 'broken', namespace: 'u', uid: 'uid-2' },
      spec: { tenant: 'not an object' },
    };
    const view = { ...staleView(deleting), allInstalls: () => Promise.resolve([deleting, broken]) };
    await expect(reconcilerFor(recorded, view).reconcile('t/acme')).rejects.toThrow(
      /the spec of u\/broken does not parse/,
    );
    expect(recorded.patches).toEqual([]);
    const degraded = recorded.statuses.at(-1)?.conditions.find((c) => c.type === 'Degraded');
    expect(degraded).toMatchObject({ status: 'True', reason: 'DataDeletionFailed' });
    expect(recorded.events.map((e) => e.reason)).toContain('DataDeletionFailed');
  });
});
