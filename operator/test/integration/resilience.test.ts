/**
 * Leader election, an apiserver restart and the ServiceMonitor CRD coming and going, each against
 * a private kube-apiserver (own etcd prefix): stopping it or adding a cluster-wide CRD must not
 * disturb the other test files. No controllers run there, so workloads are never ready; these
 * tests look at the operator's own behaviour only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import {
  kubectlApply,
  startKubeApiserver,
  waitFor,
  type KubeApiserverProcess,
} from '@pelita/testenv';
import { parse } from 'yaml';
import {
  apply,
  condition,
  connect,
  createNamespace,
  exists,
  installCrd,
  patchInstall,
  platformInstall,
  readInstall,
  startOperator,
  SERVICE_MONITOR_CRD,
  type Cluster,
  type OperatorProcess,
} from './support';

let apiserver: KubeApiserverProcess;
let cluster: Cluster;
const operators: OperatorProcess[] = [];

beforeAll(async () => {
  apiserver = await startKubeApiserver();
  cluster = connect(apiserver.kubeconfigPath);
  await installCrd(cluster);
});

afterAll(async () => {
  await Promise.all(operators.map((o) => o.kill()));
  await apiserver?.stop();
});

/** Fast leader election so failover happens within a test's patience. */
const FAST_LEASE = {
  LEASE_DURATION_SECONDS: '3',
  RENEW_DEADLINE_SECONDS: '2',
  RETRY_PERIOD_SECONDS: '0.5',
};

async function operatorFor(
  namespace: string,
  options: { identity?: string; env?: Record<string, string> } = {},
): Promise<OperatorProcess> {
  const operator = await startOperator({
    kubeconfigPath: apiserver.kubeconfigPath,
    namespace,
    ...options,
    env: { ...FAST_LEASE, ...options.env },
  });
  operators.push(operator);
  return operator;
}

function lease(namespace: string): Promise<V1Lease> {
  return cluster.config
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ namespace, name: 'pelita-operator' });
}

const service = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
});

describe('leader election', () => {
  it('lets one of two replicas reconcile, and the other take over when it dies or leaves', async () => {
    const namespace = await createNamespace(cluster, 'op-leader');
    const first = await operatorFor(namespace, { identity: 'replica-a' });
    await waitFor(async () => (await first.metric('pelita_operator_is_leader')) === 1, {
      what: 'a leads',
      timeoutMs: 15_000,
    });
    const second = await operatorFor(namespace, { identity: 'replica-b' });
    // Positive signal first: b has read the lease for longer than a lease duration (8 reads at
    // one per 0.5 s > 3 s), so it has seen a renew it; only then does "b does not lead" mean much.
    const leaseReads = async () =>
      (await second.metric('pelita_operator_kube_requests_total{verb="get"}')) ?? 0;
    await waitFor(async () => (await leaseReads()) >= 8, {
      what: 'b campaigned for a whole lease duration',
      timeoutMs: 15_000,
    });
    expect(await second.metric('pelita_operator_is_leader')).toBe(0);
    expect((await lease(namespace)).spec?.holderIdentity).toBe('replica-a');

    await apply(cluster, platformInstall(namespace, 'one'));
    await waitFor(() => exists(cluster, service(namespace, 'one-db-proxy')), {
      what: 'children by the leader',
      timeoutMs: 20_000,
    });
    expect(
      await second.metric('pelita_operator_reconcile_total{result="success"}'),
    ).toBeUndefined();

    // A crash: the lease is not released, so b waits for it to expire.
    const killedAt = Date.now();
    await first.kill();
    await waitFor(async () => (await second.metric('pelita_operator_is_leader')) === 1, {
      what: 'b takes over',
      timeoutMs: 20_000,
    });
    const takeover = Date.now() - killedAt;
    expect(takeover).toBeGreaterThanOrEqual(2000); // not before the 3 s lease ran out (minus polling)
    expect((await lease(namespace)).spec?.holderIdentity).toBe('replica-b');
    expect((await lease(namespace)).spec?.leaseTransitions).toBe(1);

    // b now repairs drift.
    await cluster.core.deleteNamespacedService({ namespace, name: 'one-db-proxy' });
    await waitFor(() => exists(cluster, service(namespace, 'one-db-proxy')), {
      what: 'b restores a child',
      timeoutMs: 20_000,
    });

    // A graceful stop releases the lease: a third replica leads at once, not after expiry.
    const third = await operatorFor(namespace, { identity: 'replica-c' });
    const stoppedAt = Date.now();
    expect(await second.stop()).toBe(0);
    expect((await lease(namespace)).spec?.holderIdentity).toBe('');
    await waitFor(async () => (await third.metric('pelita_operator_is_leader')) === 1, {
      what: 'c takes over',
      timeoutMs: 10_000,
    });
    expect(Date.now() - stoppedAt).toBeLessThan(3000);
    expect(second.logs()).toContain('released the lease');
  });
});

describe('an apiserver restart', () => {
  it('is survived: watches come back and the operator keeps reconciling', async () => {
    const namespace = await createNamespace(cluster, 'op-restart');
    // With leader election a leader that cannot renew exits for Kubernetes to restart it (as
    // client-go's do); what is tested here is the informers' own recovery, so it is off.
    const operator = await operatorFor(namespace, { env: { LEADER_ELECTION: 'false' } });
    await apply(cluster, platformInstall(namespace, 'two'));
    await waitFor(() => exists(cluster, service(namespace, 'two-db-proxy')), {
      what: 'children',
      timeoutMs: 20_000,
    });

    await apiserver.restart();

    await cluster.core.deleteNamespacedService({ namespace, name: 'two-db-proxy' });
    await waitFor(() => exists(cluster, service(namespace, 'two-db-proxy')), {
      what: 'restored after restart',
      timeoutMs: 60_000,
    });
    await patchInstall(cluster, namespace, 'two', {
      spec: { services: { summarizer: { enabled: false } } },
    });
    await waitFor(async () => !(await exists(cluster, service(namespace, 'two-summarizer'))), {
      what: 'a spec change after restart applied',
      timeoutMs: 30_000,
    });
    expect(operator.child.exitCode).toBeNull();
    expect(operator.logs()).toContain('watch failed; restarting');
  });
});

describe('ServiceMonitors', () => {
  const monitor = (namespace: string) => ({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: 'three', namespace },
  });

  it('are reported as missing without their CRD, and created once it is installed', async () => {
    const namespace = await createNamespace(cluster, 'op-monitor');
    const operator = await operatorFor(namespace);
    await apply(
      cluster,
      platformInstall(namespace, 'three', { observability: { serviceMonitor: { enabled: true } } }),
    );
    await waitFor(
      async () =>
        condition(await readInstall(cluster, namespace, 'three'), 'Degraded')?.reason ===
        'ServiceMonitorCRDMissing',
      {
        what: 'Degraded: ServiceMonitorCRDMissing',
        timeoutMs: 20_000,
      },
    );
    expect(await exists(cluster, service(namespace, 'three-db-proxy'))).toBe(true);
    expect(operator.child.exitCode).toBeNull();

    kubectlApply(cluster.kubeconfigPath, [SERVICE_MONITOR_CRD]);
    await waitFor(() => exists(cluster, monitor(namespace)), {
      what: 'ServiceMonitor created',
      timeoutMs: 30_000,
    });
    await waitFor(
      async () =>
        condition(await readInstall(cluster, namespace, 'three'), 'Degraded')?.reason !==
        'ServiceMonitorCRDMissing',
      {
        what: 'the missing-CRD condition cleared',
        timeoutMs: 20_000,
      },
    );

    // Turned off: the ServiceMonitor goes.
    await patchInstall(cluster, namespace, 'three', {
      spec: { observability: { serviceMonitor: { enabled: false } } },
    });
    await waitFor(async () => !(await exists(cluster, monitor(namespace))), {
      what: 'ServiceMonitor removed',
      timeoutMs: 20_000,
    });
  });
});

describe('shutdown', () => {
  it('is prompt even while the caches can never fill (every list forbidden)', async () => {
    const namespace = await createNamespace(cluster, 'op-forbidden');
    // A ServiceAccount without any RBAC: the operator is authenticated but may list nothing.
    await cluster.core.createNamespacedServiceAccount({
      namespace,
      body: { metadata: { name: 'nobody' } },
    });
    const { token } = (
      await cluster.core.createNamespacedServiceAccountToken({
        namespace,
        name: 'nobody',
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      })
    ).status!;
    const kubeconfig = fs.readFileSync(apiserver.kubeconfigPath, 'utf8');
    const config = parse(kubeconfig) as { users: Array<{ user: Record<string, unknown> }> };
    config.users[0]!.user = { token };
    const nobodyPath = path.join(os.tmpdir(), `pelita-nobody-${namespace}.kubeconfig`);
    fs.writeFileSync(nobodyPath, JSON.stringify(config), { mode: 0o600 });
    try {
      const operator = await startOperator({
        kubeconfigPath: nobodyPath,
        namespace,
        env: { LEADER_ELECTION: 'false' },
      });
      operators.push(operator);
      await waitFor(() => /forbidden|403/i.test(operator.logs()), {
        what: 'a forbidden list',
        timeoutMs: 15_000,
      });
      const stoppingAt = Date.now();
      expect(await operator.stop()).toBe(0);
      expect(Date.now() - stoppingAt).toBeLessThan(5000);
    } finally {
      fs.rmSync(nobodyPath, { force: true });
    }
  });
});
