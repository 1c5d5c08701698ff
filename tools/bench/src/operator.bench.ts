/**
 * The operator (built, as its own process) against a private kube-apiserver with no controllers:
 * Deployments never become ready there, so this measures creating children and the operator's
 * own cost, not rollouts. Completion is seen through watches (ClusterView), not polling.
 *
 * Apply → children: one PlatformInstall at a time, from its apply to the watch event of its last
 * child; baseline: the bench applies the same install and server-side-applies `renderDesired`'s
 * children itself, one by one, ended the same way.
 * Cold start: 50 installs exist before the operator starts; time from its start until every
 * child exists and every status has observedGeneration, and its API requests per install (its
 * `pelita_operator_kube_requests_total`), then again for a restart over the settled installs;
 * baseline: the bench applying the 50 installs' children sequentially.
 * Memory: the operator's RSS idle (no install) and settled with 50 installs.
 */
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  API_VERSION,
  CHILD_KINDS,
  KIND,
  MANAGED_BY,
  loadPolicies,
  parseSpec,
  renderDesired,
  type PlatformInstallSpecInput,
  type PolicyFiles,
} from '@pelita/operator';
import { ClusterView, objectKey, startPrivateCluster, type PrivateCluster } from './kube';
import { ratio } from './load';
import { settled, startOperator, type OperatorProcess } from './operator-process';
import { percentile, report, table, timingRow } from './report';

const SEQUENTIAL_INSTALLS = 20;
const COLD_INSTALLS = 50;
const FIELD_MANAGER = 'pelita-bench';
/** Lets start-up garbage be collected before RSS is read, idle and settled alike. */
const MEMORY_SETTLE_MS = 3000;
const POLICIES_DIR = join(__dirname, '..', '..', '..', 'policies');
const REQUESTS = 'pelita_operator_kube_requests_total';
const RSS = 'process_resident_memory_bytes';

type Install = KubernetesObject & { spec: PlatformInstallSpecInput };

export async function run(): Promise<void> {
  const policies = loadPolicies(POLICIES_DIR);
  const cluster = await startPrivateCluster();
  const view = new ClusterView(cluster.kubeconfigPath);
  let operator: OperatorProcess | undefined;
  try {
    await view.start(CHILD_KINDS, `app.kubernetes.io/managed-by=${MANAGED_BY}`);
    for (const namespace of ['sequential', 'direct', 'cold', 'cold-direct']) {
      await cluster.createNamespace(namespace);
    }
    const children = (namespace: string, name: string) =>
      childKeys(platformInstall(namespace, name), policies);
    const childCount = children('x', 'x').length;

    // 1. Apply → all children, one install at a time; install 0 warms connections up, uncounted.
    operator = await startOperator(cluster.kubeconfigPath, 'sequential');
    await sleep(MEMORY_SETTLE_MS);
    const idleRss = await operator.metric(RSS);
    const viaOperator: number[] = [];
    for (let i = 0; i <= SEQUENTIAL_INSTALLS; i += 1) {
      const name = `tenant-${i}`;
      const keys = children('sequential', name);
      const started = performance.now();
      await cluster.apply(platformInstall('sequential', name), FIELD_MANAGER);
      const created = await view.until(() => view.has(keys), `children of ${name}`, 30_000);
      // The next install starts once this one's status is written: one at a time, really.
      await view.until(() => view.isObserved('sequential', name), `status of ${name}`, 30_000);
      if (i > 0) viaOperator.push(created - started);
    }
    const sequentialErrors = await operator.metric('pelita_operator_reconcile_errors_total');
    await operator.stop();
    operator = undefined;

    const direct: number[] = [];
    for (let i = 0; i <= SEQUENTIAL_INSTALLS; i += 1) {
      const name = `tenant-${i}`;
      const keys = children('direct', name);
      const started = performance.now();
      const install = await cluster.apply(platformInstall('direct', name), FIELD_MANAGER);
      await applyChildren(cluster, install, policies);
      const created = await view.until(() => view.has(keys), `children of ${name}`, 30_000);
      if (i > 0) direct.push(created - started);
    }

    report(
      `apply → all ${childCount} children exist (watch event), ${SEQUENTIAL_INSTALLS} installs ` +
        'one after another',
    );
    table([
      timingRow('operator: apply install → children', viaOperator, 1),
      timingRow('baseline: apply install + children directly', direct, 1),
    ]);
    report(
      `operator/direct ratio: p50 ${ratio(percentile(viaOperator, 50), percentile(direct, 50))}, ` +
        `p99 ${ratio(percentile(viaOperator, 99), percentile(direct, 99))}; ` +
        `reconcile errors: ${sequentialErrors}`,
    );

    // 2. Cold start: every install exists before the operator does.
    const names = Array.from({ length: COLD_INSTALLS }, (_, i) => `tenant-${i}`);
    for (const name of names) await cluster.apply(platformInstall('cold', name), FIELD_MANAGER);
    const coldKeys = names.map((name) => children('cold', name));
    const coldStarted = performance.now();
    operator = await startOperator(cluster.kubeconfigPath, 'cold');
    const coldDone = await view.until(
      () => names.every((name, i) => view.isObserved('cold', name) && view.has(coldKeys[i] ?? [])),
      'cold start',
      180_000,
    );
    const coldMs = coldDone - coldStarted;
    const coldRequests = await operator.metric(REQUESTS);
    await settled(operator, COLD_INSTALLS, 60_000);
    const settledRequests = await operator.metric(REQUESTS);
    const coldErrors = await operator.metric('pelita_operator_reconcile_errors_total');
    await sleep(MEMORY_SETTLE_MS);
    const settledRss = await operator.metric(RSS);
    await operator.stop();

    // A restart over settled installs: every child is in the cache and matches, so no writes.
    operator = await startOperator(cluster.kubeconfigPath, 'cold');
    await settled(operator, COLD_INSTALLS, 60_000);
    const resyncRequests = await operator.metric(REQUESTS);
    const resyncVerbs = await operator.series(REQUESTS);
    await sleep(MEMORY_SETTLE_MS);
    const restartedRss = await operator.metric(RSS);
    await operator.stop();
    operator = undefined;

    const coldInstalls: KubernetesObject[] = [];
    for (const name of names) {
      coldInstalls.push(await cluster.apply(platformInstall('cold-direct', name), FIELD_MANAGER));
    }
    const directKeys = names.map((name) => children('cold-direct', name));
    const directStarted = performance.now();
    for (const install of coldInstalls) await applyChildren(cluster, install, policies);
    const directDone = await view.until(
      () => directKeys.every((keys) => view.has(keys)),
      'direct apply of the cold set',
      180_000,
    );
    const directMs = directDone - directStarted;

    report(
      `\ncold start: ${COLD_INSTALLS} installs (${COLD_INSTALLS * childCount} children) exist ` +
        'before the operator starts; from its spawn to every child and status observed',
    );
    table([
      {
        what: 'operator cold start',
        'total s': (coldMs / 1000).toFixed(2),
        'installs/s': (COLD_INSTALLS / (coldMs / 1000)).toFixed(1),
        'API requests/install': (coldRequests / COLD_INSTALLS).toFixed(1),
      },
      {
        what: 'baseline: direct sequential apply of the children',
        'total s': (directMs / 1000).toFixed(2),
        'installs/s': (COLD_INSTALLS / (directMs / 1000)).toFixed(1),
        'API requests/install': childCount,
      },
    ]);
    report(
      `operator/direct time ratio: ${ratio(coldMs, directMs)}; requests/install once settled ` +
        `(status events handled): ${(settledRequests / COLD_INSTALLS).toFixed(1)}; ` +
        `reconcile errors: ${coldErrors}`,
    );
    report(
      `re-sync after a restart over the ${COLD_INSTALLS} settled installs: ` +
        `${resyncRequests} requests, ${(resyncRequests / COLD_INSTALLS).toFixed(2)} per install ` +
        `(${Object.entries(resyncVerbs)
          .map(([verb, count]) => `${verb} ${count}`)
          .join(', ')})`,
    );

    // 3. Memory.
    report('\noperator resident memory (process_resident_memory_bytes)');
    table([
      { state: 'idle, 0 installs', 'RSS MiB': mib(idleRss), 'ratio to idle': '1.00' },
      {
        state: `settled after the cold start, ${COLD_INSTALLS} installs`,
        'RSS MiB': mib(settledRss),
        'ratio to idle': ratio(settledRss, idleRss),
      },
      {
        state: `restarted over ${COLD_INSTALLS} settled installs`,
        'RSS MiB': mib(restartedRss),
        'ratio to idle': ratio(restartedRss, idleRss),
      },
    ]);
  } finally {
    await operator?.stop();
    view.stop();
    await cluster.stop();
  }
}

/** Like the integration tests' install: the services that do not exist yet are disabled. */
function platformInstall(namespace: string, name: string): Install {
  const off = { enabled: false };
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, namespace },
    spec: {
      tenant: { id: name, displayName: `Tenant ${name}` },
      license: {
        clientId: 'client-1',
        apiUrl: 'https://license.example.com',
        credentialsSecretRef: { name: 'license' },
      },
      version: '1.0.0',
      // Required by the CEL rules of the services enabled by default; nothing connects to them.
      dependencies: {
        postgres: { url: 'postgres://postgres.bench:5432/pelita' },
        redis: { url: 'redis://redis.bench:6379/0' },
        llm: { url: 'http://llm.bench/v1', model: 'bench-model' },
      },
      services: {
        'license-service': off,
        'core-backend': off,
        'ocr-service': off,
        'ocr-worker': off,
        'office-converter': off,
        'ocr-engine': off,
      },
    },
  };
}

/** What the operator would render for `install`, uid and generation from the stored object. */
function render(install: KubernetesObject & { spec?: unknown }, policies: PolicyFiles) {
  const { name = '', namespace = '', uid = '', generation } = install.metadata ?? {};
  return renderDesired({
    install: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name, namespace, uid, generation },
      spec: parseSpec(install.spec),
    },
    policies,
  });
}

function childKeys(install: Install, policies: PolicyFiles): string[] {
  return render(install, policies).map((child) => objectKey(child));
}

/** The baseline: the same children, server-side applied one at a time. */
async function applyChildren(
  cluster: PrivateCluster,
  install: KubernetesObject,
  policies: PolicyFiles,
): Promise<void> {
  for (const child of render(install, policies)) await cluster.apply(child, FIELD_MANAGER);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
