import type { CoreV1Event, KubernetesObject } from '@kubernetes/client-node';
import { createLogger } from '@pelita/kit';
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
  const client = {
    apply: <T extends KubernetesObject>(object: T) => Promise.resolve(object),
    remove: () => Promise.resolve(),
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
  return { client: client as unknown as KubeClient, statuses, events };
}

/** Caches that never catch up: the install keeps the status it had before any write. */
function staleView(install: RawInstall): ClusterView {
  return {
    install: () => install,
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
