/**
 * The control-plane side of the tenant-density benchmark: N PlatformInstalls on a private
 * kube-apiserver (kube.ts) given the controllers, scheduler and kwok fake nodes the testenv's
 * shared cluster has, so the install's Deployments and StatefulSets really become Ready; the
 * operator process (operator-process.ts) is started over them. Figures: time from the operator's
 * spawn to every install `Ready=True`, its RSS once settled, its reconcile p99 (its histogram).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { requireEnv, stopChild } from '@pelita/testenv';
import { ClusterView, startPrivateCluster } from './kube';
import { MEMORY_SETTLE_MS, settled, startOperator, type OperatorProcess } from './operator-process';
import { installChildName, type Tenant } from './tenant-density-tenants';

const STAGES_FILE = join(__dirname, '..', '..', 'testenv', 'kwok', 'stages.yaml');
const FAKE_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
/** Pods per fake node: nodes are many-core stand-ins, the count only spreads the pods. */
const PODS_PER_NODE = 1000;
/** Pods an install runs (one per enabled service): only sizes the fake nodes. */
const PODS_PER_INSTALL = 12;
const FIELD_MANAGER = 'pelita-bench';
const APPLY_CONCURRENCY = 8;

export interface ClusterFigures {
  readySeconds: number;
  rssBytes: number;
  reconcileP99Seconds: number;
  reconciles: number;
  reconcileErrors: number;
}

/** The processes that make pods Ready: controllers, scheduler, kwok; logs in a temp dir. */
function startHelpers(kubeconfig: string): {
  stop(keepLogs: boolean): Promise<void>;
  logDir: string;
} {
  const { KUBE_APISERVER_BIN, KWOK_BIN } = requireEnv('KUBE_APISERVER_BIN', 'KWOK_BIN');
  const bin = dirname(KUBE_APISERVER_BIN);
  const logDir = mkdtempSync(join(tmpdir(), 'pelita-tenant-density-'));
  const children: ChildProcess[] = [];
  const launch = (name: string, command: string, args: string[]) => {
    const log = openSync(join(logDir, `${name}.log`), 'a');
    children.push(spawn(command, args, { stdio: ['ignore', log, log] }));
  };
  // No authentication port of their own (port 0); no leases; API rates high enough for
  // thousands of pods (the defaults, 20/s, would be what is measured).
  const client = [
    `--kubeconfig=${kubeconfig}`,
    '--secure-port=0',
    '--leader-elect=false',
    '--kube-api-qps=500',
    '--kube-api-burst=1000',
  ];
  launch('kube-controller-manager', join(bin, 'kube-controller-manager'), [
    ...client,
    // What rolls out workloads and binds the OCR workers' claims; no token controller, which
    // would need the service-account signing key.
    '--controllers=deployment,replicaset,statefulset,persistentvolume-binder,serviceaccount,garbagecollector,nodelifecycle',
    // kwok renews the fake nodes' leases; with thousands of pods to patch its renewals lagged
    // past 10 min at N = 1,000, the nodes went Unknown and every pod was marked unready for good
    // (kwok does not mark them ready again): longer than any run, as the nodes never fail.
    '--node-monitor-grace-period=2h',
  ]);
  launch('kube-scheduler', join(bin, 'kube-scheduler'), client);
  launch('kwok', KWOK_BIN, [
    `--kubeconfig=${kubeconfig}`,
    `--config=${STAGES_FILE}`,
    '--manage-all-nodes=false',
    `--manage-nodes-with-annotation-selector=${FAKE_NODE_ANNOTATION}=fake`,
    '--cidr=10.0.0.0/8',
  ]);
  return {
    logDir,
    async stop(keepLogs) {
      await Promise.all(children.map((child) => stopChild(child)));
      if (!keepLogs) rmSync(logDir, { recursive: true, force: true });
    },
  };
}

function fakeNode(name: string): KubernetesObject {
  const resources = { cpu: '1000', memory: '4Ti', pods: String(PODS_PER_NODE) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [FAKE_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: { type: 'kwok', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' },
    },
    status: { allocatable: resources, capacity: resources, phase: 'Running' },
  } as KubernetesObject;
}

/** A static volume for the tenant's OCR worker claim (no provisioner runs, as in the tests). */
function workVolume(tenant: Tenant): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `${tenant.namespace}-work` },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: `/tmp/${tenant.namespace}-work` },
      claimRef: {
        namespace: tenant.namespace,
        name: `work-${installChildName(tenant, 'ocr-worker')}-0`,
      },
    },
  } as KubernetesObject;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size)
    await Promise.all(items.slice(i, i + size).map(work));
}

/** N installs, then the operator; resolves with its figures once every install is Ready. */
export async function measureCluster(
  tenants: Tenant[],
  readyTimeoutMs: number,
): Promise<ClusterFigures> {
  const cluster = await startPrivateCluster();
  let helpers: ReturnType<typeof startHelpers> | undefined;
  let operator: OperatorProcess | undefined;
  let view: ClusterView | undefined;
  let failed = true;
  try {
    helpers = startHelpers(cluster.kubeconfigPath);
    const nodes = Math.ceil((tenants.length * PODS_PER_INSTALL) / PODS_PER_NODE) + 1;
    for (let i = 0; i < nodes; i += 1) await cluster.objects.create(fakeNode(`kwok-node-${i}`));
    await inBatches(tenants, APPLY_CONCURRENCY, async (tenant) => {
      await cluster.createNamespace(tenant.namespace);
      await cluster.objects.create(workVolume(tenant));
      await cluster.apply(tenant.install, FIELD_MANAGER);
    });
    // Followed by a watch: listing a thousand installs every few seconds would load the API
    // server whose work is measured.
    const installs = new ClusterView(cluster.kubeconfigPath);
    view = installs;
    await installs.start([], '');
    const started = performance.now();
    operator = await startOperator(cluster.kubeconfigPath, '');
    const allReady = await installs.until(
      () => installs.readyCount() === tenants.length,
      `${tenants.length} installs Ready (logs of the controllers and kwok: ${helpers.logDir})`,
      readyTimeoutMs,
    );
    const readySeconds = (allReady - started) / 1000;
    const reconciles = await operator.metric('pelita_operator_reconcile_total');
    await settled(operator, reconciles, 120_000, 2000);
    await new Promise((resolve) => setTimeout(resolve, MEMORY_SETTLE_MS));
    failed = false;
    return {
      readySeconds,
      rssBytes: await operator.metric('process_resident_memory_bytes'),
      reconcileP99Seconds: await operator.quantile(
        'pelita_operator_reconcile_duration_seconds',
        0.99,
      ),
      reconciles: await operator.metric('pelita_operator_reconcile_total'),
      reconcileErrors: await operator.metric('pelita_operator_reconcile_errors_total'),
    };
  } finally {
    view?.stop();
    await operator?.stop();
    await helpers?.stop(failed);
    // The private apiserver's etcd prefix goes with it: namespaces, volumes, installs.
    await cluster.stop();
  }
}
