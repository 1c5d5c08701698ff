/**
 * The operator as a process against the test environment's real control plane (kube-apiserver,
 * etcd, controllers, scheduler and kwok's fake nodes): children, drift repair, pruning, status.
 */
import {
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1Deployment,
} from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { requireEnv, waitFor } from '@pelita/testenv';
import { parseSpec, type PlatformInstall } from '../../src/crd/platform-install';
import { loadPolicies } from '../../src/policies';
import { renderDesired } from '../../src/render';
import {
  apply,
  changeAndAwaitReconcile,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  exists,
  installCrd,
  MERGE_PATCH,
  patchInstall,
  platformInstall,
  readInstall,
  REPO_ROOT,
  startOperator,
  status,
  type OperatorProcess,
} from './support';

const cluster = connect();
let namespace: string;
let operator: OperatorProcess;

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-reconcile');
  operator = await startOperator({ kubeconfigPath: cluster.kubeconfigPath, namespace });
});

afterAll(async () => {
  const code = await operator?.stop();
  await deleteNamespace(cluster, namespace);
  // On failure the operator's log is the first thing to read.
  if (code !== 0) process.stderr.write(operator.logs().slice(-6000));
  expect(code).toBe(0);
});

async function deployment(name: string): Promise<V1Deployment | undefined> {
  try {
    return await cluster.apps.readNamespacedDeployment({ namespace, name });
  } catch (err) {
    if (status(err) === 404) return undefined;
    throw err;
  }
}

/** What the operator should have created, rendered the same way from the stored object. */
async function expectedChildren(name: string): Promise<KubernetesObject[]> {
  const stored = await readInstall(cluster, namespace, name);
  const install: PlatformInstall = {
    apiVersion: 'pelita.io/v1alpha1',
    kind: 'PlatformInstall',
    metadata: {
      name,
      namespace,
      uid: stored.metadata!.uid!,
      generation: stored.metadata!.generation,
    },
    spec: parseSpec(stored.spec),
  };
  return renderDesired({ install, policies: loadPolicies(`${REPO_ROOT}/policies`) });
}

describe('a PlatformInstall', () => {
  const name = 'acme';

  it('is rejected by the CRD schema when invalid', async () => {
    const invalid = [
      { tenant: undefined },
      { services: { 'db-proxy': { replicas: 51 } } },
      { image: { pullPolicy: 'Sometimes' } },
      { ingress: { enabled: true } },
    ];
    for (const change of invalid) {
      const object = platformInstall(namespace, 'invalid', change as never);
      await expect(apply(cluster, object)).rejects.toMatchObject({ code: 422 });
    }
    const tooLong = platformInstall(namespace, 'a'.repeat(41));
    await expect(apply(cluster, tooLong)).rejects.toMatchObject({ code: 422 });
  });

  it('is explained by kubectl from the CRD descriptions', () => {
    const { KUBECTL_BIN } = requireEnv('KUBECTL_BIN');
    const explain = (field: string) =>
      execFileSync(KUBECTL_BIN, ['--kubeconfig', cluster.kubeconfigPath, 'explain', field], {
        encoding: 'utf8',
      });
    expect(explain('pi.spec.tenant')).toContain('Tenant identity.');
    expect(explain('pi.spec.image.pullPolicy')).toMatch(/ENUM:\s+Always\s+IfNotPresent\s+Never/);
    expect(explain('pi.status.conditions')).toContain('Ready, Progressing, Degraded.');
  });

  it('gets every child, owned by it, as rendered', async () => {
    await apply(
      cluster,
      platformInstall(namespace, name, { services: { 'db-proxy': { replicas: 2 } } }),
    );
    const desired = await expectedChildren(name);
    expect(desired.length).toBeGreaterThan(20);
    const stored = await readInstall(cluster, namespace, name);
    await waitFor(
      async () => (await Promise.all(desired.map((o) => exists(cluster, o)))).every(Boolean),
      {
        what: 'every child created',
        timeoutMs: 30_000,
        intervalMs: 200,
      },
    );
    for (const object of desired) {
      const live = await cluster.objects.read(object as never);
      const owner = live.metadata?.ownerReferences?.[0];
      expect(owner).toMatchObject({
        kind: 'PlatformInstall',
        name,
        uid: stored.metadata!.uid,
        controller: true,
      });
    }
    const pdb = await cluster.objects.read({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: `${name}-db-proxy`, namespace },
    });
    expect(pdb).toBeDefined();
    expect((await deployment(`${name}-license-service`)) === undefined).toBe(true);
  });

  it('goes Ready as its Deployments become ready on the fake nodes', async () => {
    await waitFor(
      async () =>
        condition(await readInstall(cluster, namespace, name), 'Ready')?.status === 'True',
      {
        what: 'Ready=True',
        timeoutMs: 90_000,
        intervalMs: 500,
      },
    );
    const install = await readInstall(cluster, namespace, name);
    expect(install.status?.observedGeneration).toBe(install.metadata?.generation);
    expect(install.status?.services?.['db-proxy']).toEqual({ ready: 2, desired: 2 });
    expect(condition(install, 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'RolloutComplete',
    });
    expect(condition(install, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
    const events = await cluster.core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.name=${name},involvedObject.kind=PlatformInstall`,
    });
    // Once: the transition is judged against the status last written, not a lagging cache.
    expect(events.items.filter((e) => e.reason === 'AllServicesReady')).toHaveLength(1);
    const { KUBECTL_BIN } = requireEnv('KUBECTL_BIN');
    const table = execFileSync(
      KUBECTL_BIN,
      ['--kubeconfig', cluster.kubeconfigPath, '-n', namespace, 'get', 'pi', name],
      { encoding: 'utf8' },
    );
    expect(table).toMatch(/READY\s+REASON\s+TENANT\s+SERVICES\s+VERSION\s+AGE/);
    const enabled = Object.keys(install.status?.services ?? {}).length;
    expect(table).toMatch(
      new RegExp(`True\\s+AllServicesReady\\s+\\S+\\s+${enabled}/${enabled}\\s`),
    );
  });

  it('applies a changed replica count, version and a disabled service', async () => {
    await patchInstall(cluster, namespace, name, {
      spec: {
        version: '1.1.0',
        services: { 'http-proxy': { replicas: 3 }, summarizer: { enabled: false } },
      },
    });
    await waitFor(
      async () => {
        const proxy = await deployment(`${name}-http-proxy`);
        return (
          proxy?.spec?.replicas === 3 &&
          proxy.spec.template.spec?.containers[0]?.image === 'ghcr.io/pelita/http-proxy:1.1.0' &&
          (await deployment(`${name}-summarizer`)) === undefined
        );
      },
      { what: 'replicas, version and removal applied', timeoutMs: 30_000, intervalMs: 200 },
    );
    for (const kind of ['Service', 'ServiceAccount', 'ConfigMap']) {
      const ref = { apiVersion: 'v1', kind, metadata: { name: `${name}-summarizer`, namespace } };
      await waitFor(async () => !(await exists(cluster, ref)), {
        what: `${kind} removed`,
        timeoutMs: 30_000,
      });
    }
    await waitFor(
      async () => {
        const install = await readInstall(cluster, namespace, name);
        return (
          install.status?.observedGeneration === install.metadata?.generation &&
          condition(install, 'Ready')?.status === 'True'
        );
      },
      { what: 'Ready again at the new generation', timeoutMs: 90_000, intervalMs: 500 },
    );
    const install = await readInstall(cluster, namespace, name);
    expect(install.status?.services?.summarizer).toBeUndefined();
    expect(install.status?.services?.['http-proxy']).toEqual({ ready: 3, desired: 3 });
  });

  it('restores a deleted child and reverts an edited one', async () => {
    await cluster.core.deleteNamespacedService({ namespace, name: `${name}-db-proxy` });
    await cluster.apps.patchNamespacedDeployment(
      { namespace, name: `${name}-db-proxy`, body: { spec: { replicas: 7 } } },
      MERGE_PATCH,
    );
    await cluster.core.patchNamespacedConfigMap(
      { namespace, name: `${name}-db-proxy`, body: { data: { LOG_LEVEL: 'trace' } } },
      MERGE_PATCH,
    );
    await waitFor(
      async () => {
        const restored = await exists(cluster, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: `${name}-db-proxy`, namespace },
        });
        const replicas = (await deployment(`${name}-db-proxy`))?.spec?.replicas;
        const config = await cluster.core.readNamespacedConfigMap({
          namespace,
          name: `${name}-db-proxy`,
        });
        return restored && replicas === 2 && config.data?.LOG_LEVEL === 'info';
      },
      { what: 'drift repaired', timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('removes a key and an env var someone else added to its children', async () => {
    const proxy = `${name}-db-proxy`;
    // Another field manager (kubectl's), as `kubectl edit` / `kubectl set env` would.
    await cluster.core.patchNamespacedConfigMap(
      { namespace, name: proxy, body: { data: { INJECTED_SETTING: 'by hand' } } },
      MERGE_PATCH,
    );
    await cluster.apps.patchNamespacedDeployment(
      {
        namespace,
        name: proxy,
        body: [
          {
            op: 'add',
            path: '/spec/template/spec/containers/0/env/-',
            value: { name: 'INJECTED_ENV', value: 'by hand' },
          },
        ],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await waitFor(
      async () => {
        const config = await cluster.core.readNamespacedConfigMap({ namespace, name: proxy });
        const env = (await deployment(proxy))?.spec?.template.spec?.containers[0]?.env ?? [];
        return (
          !('INJECTED_SETTING' in (config.data ?? {})) &&
          !env.some((e) => e.name === 'INJECTED_ENV') &&
          config.data?.LOG_LEVEL !== undefined
        );
      },
      { what: 'the added key and env var removed', timeoutMs: 30_000, intervalMs: 200 },
    );
    // Only what was added went: the rendered settings are all still there.
    const expected = (await expectedChildren(name)).find(
      (o) => o.kind === 'ConfigMap' && o.metadata?.name === proxy,
    ) as { data: Record<string, string> };
    const config = await cluster.core.readNamespacedConfigMap({ namespace, name: proxy });
    expect(config.data).toEqual(expected.data);
  });

  it('removes fields no longer desired (the desired-object hash changed)', async () => {
    const proxy = `${name}-db-proxy`;
    const limits = async () =>
      (await deployment(proxy))?.spec?.template.spec?.containers[0]?.resources?.limits;
    await patchInstall(cluster, namespace, name, {
      spec: { services: { 'db-proxy': { resources: { limits: { memory: '256Mi' } } } } },
    });
    await waitFor(async () => (await limits())?.memory === '256Mi', {
      what: 'limits applied',
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const hashBefore = (await deployment(proxy))?.metadata?.annotations?.['pelita.io/desired-hash'];
    expect(hashBefore).toMatch(/^[0-9a-f]{64}$/);
    await patchInstall(cluster, namespace, name, {
      spec: { services: { 'db-proxy': { resources: { limits: null } } } },
    });
    // Live still held every desired value: only the hash tells the limits were removed.
    await waitFor(async () => (await limits()) === undefined, {
      what: 'limits removed',
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const after = await deployment(proxy);
    expect(after?.metadata?.annotations?.['pelita.io/desired-hash']).not.toBe(hashBefore);
  });

  it('leaves children alone while paused, and repairs them once resumed', async () => {
    await patchInstall(cluster, namespace, name, {
      metadata: { annotations: { 'pelita.io/paused': 'true' } },
    });
    await waitFor(
      async () =>
        condition(await readInstall(cluster, namespace, name), 'Progressing')?.reason === 'Paused',
      {
        what: 'Paused reported',
        timeoutMs: 30_000,
        intervalMs: 200,
      },
    );
    // Positive signal first: the deletion was seen and a reconcile after it has run.
    await changeAndAwaitReconcile(operator, 'Service', () =>
      cluster.core.deleteNamespacedService({ namespace, name: `${name}-http-proxy` }),
    );
    const ref = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${name}-http-proxy`, namespace },
    };
    expect(await exists(cluster, ref)).toBe(false);
    await patchInstall(cluster, namespace, name, {
      metadata: { annotations: { 'pelita.io/paused': null } },
    });
    await waitFor(() => exists(cluster, ref), {
      what: 'Service restored after resume',
      timeoutMs: 30_000,
    });
  });

  it('reports Degraded when pods are lost and cannot come back, Ready when they can', async () => {
    const nodes = (await cluster.core.listNode()).items.map((n) => n.metadata!.name!);
    const cordon = (unschedulable: boolean) =>
      Promise.all(
        nodes.map((node) =>
          cluster.core.patchNode({ name: node, body: { spec: { unschedulable } } }, MERGE_PATCH),
        ),
      );
    await cordon(true);
    try {
      await cluster.core.deleteCollectionNamespacedPod({
        namespace,
        labelSelector: `app.kubernetes.io/instance=${name},app.kubernetes.io/name=db-proxy`,
      });
      await waitFor(
        async () =>
          condition(await readInstall(cluster, namespace, name), 'Degraded')?.status === 'True',
        {
          what: 'Degraded=True',
          timeoutMs: 60_000,
          intervalMs: 250,
        },
      );
      const install = await readInstall(cluster, namespace, name);
      expect(condition(install, 'Degraded')?.reason).toBe('ReplicasUnavailable');
      expect(condition(install, 'Degraded')?.message).toContain('db-proxy 0/2');
      expect(condition(install, 'Ready')?.status).toBe('False');
    } finally {
      await cordon(false);
    }
    // Ready comes back with the first pod (the Deployment is available again); Degraded goes
    // only when both are back: wait for the settled state, not the first of the two.
    await waitFor(
      async () => {
        const back = await readInstall(cluster, namespace, name);
        return (
          condition(back, 'Ready')?.status === 'True' &&
          condition(back, 'Degraded')?.status === 'False'
        );
      },
      {
        what: 'Ready=True and Degraded=False again',
        timeoutMs: 90_000,
        intervalMs: 500,
      },
    );
    const install = await readInstall(cluster, namespace, name);
    expect(condition(install, 'Degraded')?.status).toBe('False');
    const events = await cluster.core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.name=${name}`,
    });
    expect(events.items.map((e) => e.reason)).toEqual(
      expect.arrayContaining(['ReplicasUnavailable', 'AllServicesReady']),
    );
  });

  it('is deleted with its children (garbage collection through owner references)', async () => {
    await cluster.custom.deleteNamespacedCustomObject({
      group: 'pelita.io',
      version: 'v1alpha1',
      plural: 'platforminstalls',
      namespace,
      name,
      propagationPolicy: 'Foreground',
    });
    await waitFor(
      async () => (await cluster.apps.listNamespacedDeployment({ namespace })).items.length === 0,
      {
        what: 'children garbage-collected',
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );
  });
});

describe('operator metrics', () => {
  it('counts reconciles and API requests', async () => {
    expect(
      await operator.metric('pelita_operator_reconcile_total{result="success"}'),
    ).toBeGreaterThan(0);
    expect(await operator.metric('pelita_operator_is_leader')).toBe(1);
    const text = await (await fetch(`${operator.url}/metrics`)).text();
    expect(text).toMatch(/pelita_operator_kube_requests_total\{verb="apply"\} \d+/);
    expect(text).toMatch(/pelita_operator_reconcile_duration_seconds_count \d+/);
    expect(text).toMatch(/pelita_operator_queue_depth \d+/);
  });
});
