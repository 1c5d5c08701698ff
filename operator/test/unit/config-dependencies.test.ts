import type { KubernetesObject } from '@kubernetes/client-node';
import { createLogger } from '@pelita/kit';
import { configMapsReadBy } from '../../src/controller/config-dependencies';
import { Reconciler, type RawInstall } from '../../src/controller/reconciler';
import type { PlatformInstallStatus } from '../../src/crd/platform-install';
import type { KubeClient } from '../../src/kube/client';
import { CHILD_KINDS } from '../../src/kube/kinds';
import { renderDesired } from '../../src/render';
import { platformSecretKeys } from '../../src/service-catalog';
import { makeInstall, minimalSpec } from './fixtures';

const install: RawInstall = {
  apiVersion: 'pelita.io/v1alpha1',
  kind: 'PlatformInstall',
  metadata: { name: 'acme', namespace: 't', uid: 'uid-1', generation: 1 },
  spec: minimalSpec,
};

describe('configMapsReadBy', () => {
  it("names the ConfigMaps a rendered workload's pods read, and none for a ConfigMap", () => {
    const desired = renderDesired({ install: makeInstall(), policies: {} });
    const byName = (kind: string, name: string) =>
      desired.find((o) => o.kind === kind && o.metadata?.name === name) as KubernetesObject;
    expect(configMapsReadBy(byName('Deployment', 'acme-user-service'))).toContain(
      'acme-user-service',
    );
    expect(configMapsReadBy(byName('ConfigMap', 'acme-user-service'))).toEqual([]);
  });
});

describe('a ConfigMap that fails to apply', () => {
  it('holds back the workloads reading it (their new hash would roll the pods onto the old settings) and says so', async () => {
    const applied: string[] = [];
    const statuses: PlatformInstallStatus[] = [];
    const client = {
      apply: <T extends KubernetesObject>(object: T) => {
        const name = `${object.kind}/${object.metadata?.name}`;
        if (name === 'ConfigMap/acme-user-service') {
          return Promise.reject(new Error('the apiserver timed out'));
        }
        applied.push(name);
        return Promise.resolve(object);
      },
      patchJson: () => Promise.resolve(),
      remove: () => Promise.resolve(),
      applyStatus: (_t: unknown, _r: unknown, status: PlatformInstallStatus) => {
        statuses.push(structuredClone(status));
        return Promise.resolve();
      },
      createEvent: () => Promise.resolve(),
      readSecret: () =>
        Promise.resolve({ data: Object.fromEntries(platformSecretKeys().map((k) => [k, ''])) }),
    } as unknown as KubeClient;
    const reconciler = new Reconciler({
      client,
      view: {
        install: () => install,
        allInstalls: () => Promise.resolve([install]),
        live: () => undefined,
        children: () => [],
        childKinds: () => CHILD_KINDS,
        serviceMonitorsAvailable: () => true,
      },
      policies: {},
      logger: createLogger({ name: 'test', level: 'silent' }),
      identity: 'op-0',
      now: () => new Date('2026-11-28T10:00:00Z'),
    });
    // A failed write fails the reconcile, so the work queue tries it again with backoff.
    await expect(reconciler.reconcile('t/acme')).rejects.toThrow('the apiserver timed out');
    expect(applied).not.toContain('Deployment/acme-user-service');
    expect(applied).toContain('Deployment/acme-http-proxy');
    const messages = (statuses.at(-1)?.conditions ?? []).map((c) => c.message ?? '').join('\n');
    expect(messages).toContain(
      'Deployment acme-user-service: held back until ConfigMap acme-user-service is applied',
    );
  });
});
