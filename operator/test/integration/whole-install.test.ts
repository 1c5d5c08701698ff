/**
 * A whole PlatformInstall, every service enabled, goes Ready for real: pods scheduled on kwok's
 * fake nodes, Deployments and the ocr-worker StatefulSet (its claim bound to a static volume)
 * report ready replicas, and the operator's status follows.
 */
import type { V1PersistentVolume } from '@kubernetes/client-node';
import { waitFor } from '@pelita/testenv';
import { SERVICE_NAMES } from '../../src/crd/platform-install';
import {
  apply,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  readInstall,
  startOperator,
  TEST_DEPENDENCIES,
  type OperatorProcess,
} from './support';

const cluster = connect();
let namespace: string;
let operator: OperatorProcess;
let volume: string;
const name = 'whole';

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-whole');
  operator = await startOperator({ kubeconfigPath: cluster.kubeconfigPath, namespace });
  // No provisioner runs here: a static volume reserved for the worker's claim stands in for one.
  volume = `${namespace}-work`;
  const pv: V1PersistentVolume = {
    metadata: { name: volume },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: `/tmp/${volume}` },
      claimRef: { namespace, name: `work-${name}-ocr-worker-0` },
    },
  };
  await cluster.core.createPersistentVolume({ body: pv });
});

afterAll(async () => {
  const code = await operator?.stop();
  await deleteNamespace(cluster, namespace);
  await cluster.core.deletePersistentVolume({ name: volume }).catch(() => undefined);
  if (code !== 0) process.stderr.write(operator.logs().slice(-6000));
  expect(code).toBe(0);
});

// The wait below allows 120 s on a loaded machine; the test's own limit is above it.
it('goes Ready with every service running, the StatefulSet included', async () => {
  await apply(cluster, {
    apiVersion: 'pelita.io/v1alpha1',
    kind: 'PlatformInstall',
    metadata: { name, namespace },
    spec: {
      tenant: { id: 'whole', displayName: 'Whole' },
      license: {
        clientId: 'client-1',
        apiUrl: 'https://license.example.com',
        credentialsSecretRef: { name: 'license' },
      },
      version: '1.0.0',
      dependencies: TEST_DEPENDENCIES,
      services: {
        ...Object.fromEntries(SERVICE_NAMES.map((service) => [service, { enabled: true }])),
        'user-service': { replicas: 2 },
        'ocr-worker': { enabled: true, replicas: 1 },
      },
    },
  });
  await waitFor(
    async () => condition(await readInstall(cluster, namespace, name), 'Ready')?.status === 'True',
    { what: 'the whole install Ready', timeoutMs: 120_000, intervalMs: 500 },
  );
  const install = await readInstall(cluster, namespace, name);
  expect(Object.keys(install.status?.services ?? {}).sort()).toEqual([...SERVICE_NAMES].sort());
  for (const [service, counts] of Object.entries(install.status?.services ?? {})) {
    expect({ service, ...counts }).toEqual({
      service,
      ready: service === 'user-service' ? 2 : 1,
      desired: service === 'user-service' ? 2 : 1,
    });
  }
  const worker = await cluster.apps.readNamespacedStatefulSet({
    namespace,
    name: `${name}-ocr-worker`,
  });
  expect(worker.status?.readyReplicas).toBe(1);
  const claim = await cluster.core.readNamespacedPersistentVolumeClaim({
    namespace,
    name: `work-${name}-ocr-worker-0`,
  });
  expect(claim.status?.phase).toBe('Bound');
  const pods = await cluster.core.listNamespacedPod({ namespace });
  expect(pods.items.length).toBe(SERVICE_NAMES.length + 1);
  for (const pod of pods.items) {
    expect(pod.spec?.nodeName).toMatch(/^kwok-node-/);
    expect(pod.status?.phase).toBe('Running');
  }
  // The policy-sync pod runs its OPA sidecar beside it, sharing /share.
  const policySync = pods.items.find(
    (p) => p.metadata?.labels?.['app.kubernetes.io/name'] === 'policy-sync',
  );
  expect(policySync?.spec?.containers.map((c) => c.name).sort()).toEqual(['opa', 'policy-sync']);
}, 180_000);
