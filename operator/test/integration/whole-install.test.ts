/**
 * A whole PlatformInstall, every service enabled, goes Ready for real: pods scheduled on kwok's
 * fake nodes its placement names, Deployments and the ocr-worker StatefulSet (its claim bound to a static volume)
 * report ready replicas, and the operator's status follows.
 */
import type { V1Deployment, V1PersistentVolume } from '@kubernetes/client-node';
import { waitFor } from '@pelita/testenv';
import { parseSpec, SERVICE_NAMES } from '../../src/crd/platform-install';
import { loadPolicies } from '../../src/policies';
import { renderDesired } from '../../src/render';
import {
  apply,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  patchInstall,
  readInstall,
  REPO_ROOT,
  startOperator,
  TEST_DEPENDENCIES,
  type OperatorProcess,
} from './support';

const cluster = connect();
let namespace: string;
let operator: OperatorProcess;
let volume: string;
const name = 'whole';
const toleration = { key: 'pelita.io/test', operator: 'Exists', effect: 'NoSchedule' };

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
      // Every pod on one fake node, but the summarizer's on another (its own placement).
      placement: {
        nodeSelector: { 'kubernetes.io/hostname': 'kwok-node-1' },
        tolerations: [toleration],
      },
      services: {
        ...Object.fromEntries(SERVICE_NAMES.map((service) => [service, { enabled: true }])),
        'user-service': { replicas: 2 },
        'ocr-worker': { enabled: true, replicas: 1 },
        summarizer: {
          enabled: true,
          placement: { nodeSelector: { 'kubernetes.io/hostname': 'kwok-node-2' } },
        },
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
    const service = pod.metadata?.labels?.['app.kubernetes.io/name'];
    // Deployments, the ocr-worker StatefulSet and the converter: where the install says.
    expect({ service, node: pod.spec?.nodeName }).toEqual({
      service,
      node: service === 'summarizer' ? 'kwok-node-2' : 'kwok-node-1',
    });
    expect(pod.spec?.tolerations).toContainEqual(toleration);
    expect(pod.status?.phase).toBe('Running');
  }
  // The placement as the API stores it is what the operator renders: settled, no re-apply.
  const stored = await readInstall(cluster, namespace, name);
  const desired = renderDesired({
    install: {
      apiVersion: 'pelita.io/v1alpha1',
      kind: 'PlatformInstall',
      metadata: { name, namespace, uid: stored.metadata!.uid! },
      spec: parseSpec(stored.spec),
    },
    policies: loadPolicies(`${REPO_ROOT}/policies`),
  }).filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  for (const object of desired) {
    const live = await cluster.objects.read(object as never);
    const template = (live as V1Deployment).spec?.template.spec;
    expect(template?.tolerations).toEqual([toleration]);
    const rendered = (object as V1Deployment).spec?.template.spec;
    expect(template?.nodeSelector).toEqual(rendered?.nodeSelector);
  }
  // And the operator leaves it so: another reconcile (an annotation queues one) applies and
  // patches nothing.
  const applies = async () =>
    ((await operator.metric('pelita_operator_kube_requests_total{verb="apply"}')) ?? 0) +
    ((await operator.metric('pelita_operator_kube_requests_total{verb="patch"}')) ?? 0);
  const reconciles = async () =>
    (await operator.metric('pelita_operator_reconcile_total{result="success"}')) ?? 0;
  const [appliesBefore, reconcilesBefore] = [await applies(), await reconciles()];
  await patchInstall(cluster, namespace, name, { metadata: { annotations: { nudge: '1' } } });
  await waitFor(async () => (await reconciles()) > reconcilesBefore, {
    what: 'one more reconcile',
    timeoutMs: 20_000,
  });
  expect(await applies()).toBe(appliesBefore);
  // The policy-sync pod runs its OPA sidecar beside it, sharing /share.
  const policySync = pods.items.find(
    (p) => p.metadata?.labels?.['app.kubernetes.io/name'] === 'policy-sync',
  );
  expect(policySync?.spec?.containers.map((c) => c.name).sort()).toEqual(['opa', 'policy-sync']);
}, 180_000);
