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
import { KubeConfig, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { errorMessage } from '@pelita/kit';
import { collectionPath, PLATFORM_INSTALL } from '@pelita/operator';
import { requireEnv, stopChild, waitFor } from '@pelita/testenv';
import { startPrivateCluster } from './kube';
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

type Install = KubernetesObject & {
  status?: { conditions?: Array<{ type: string; status: string }> };
};

/**
 * The installs whose Ready condition is True, kept by a watch: listing a thousand installs every
 * few seconds would load the apiserver whose work is being measured.
 */
async function watchReady(kubeconfigPath: string): Promise<{ count(): number; stop(): void }> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const ready = new Set<string>();
  let stopping = false;
  let failure: Error | undefined;
  const request = await new Watch(config).watch(
    collectionPath(PLATFORM_INSTALL),
    {},
    (phase, install: Install) => {
      if (phase === 'ERROR') {
        failure = new Error(`the installs' watch failed: ${JSON.stringify(install)}`);
        return;
      }
      const key = `${install.metadata?.namespace}/${install.metadata?.name}`;
      const isReady = install.status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      );
      if (phase !== 'DELETED' && isReady) ready.add(key);
      else ready.delete(key);
    },
    (err: unknown) => {
      if (!stopping) failure = new Error(`the installs' watch ended: ${errorMessage(err)}`);
    },
  );
  return {
    count() {
      if (failure) throw failure;
      return ready.size;
    },
    stop() {
      stopping = true;
      request.abort();
    },
  };
}

/** N installs, then the operator; resolves with its figures once every install is Ready. */
export async function measureCluster(
  tenants: Tenant[],
  readyTimeoutMs: number,
): Promise<ClusterFigures> {
  const cluster = await startPrivateCluster();
  let helpers: ReturnType<typeof startHelpers> | undefined;
  let operator: OperatorProcess | undefined;
  let ready: Awaited<ReturnType<typeof watchReady>> | undefined;
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
    const watching = await watchReady(cluster.kubeconfigPath);
    ready = watching;
    const started = performance.now();
    operator = await startOperator(cluster.kubeconfigPath, '');
    await waitFor(() => watching.count() === tenants.length, {
      what: `${tenants.length} installs Ready (logs of the controllers and kwok: ${helpers.logDir})`,
      timeoutMs: readyTimeoutMs,
      intervalMs: 250,
    });
    const readySeconds = (performance.now() - started) / 1000;
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
    ready?.stop();
    await operator?.stop();
    await helpers?.stop(failed);
    // The private apiserver's etcd prefix goes with it: namespaces, volumes, installs.
    await cluster.stop();
  }
}
