/**
 * The operator (built, as its own process) against a private kube-apiserver with no controllers:
 * Deployments never become ready there, so this measures creating children and the operator's
 * own cost, not rollouts. Completion is seen through watches (ClusterView), not polling.
 *
 * Apply → children: one PlatformInstall at a time, from its apply to the watch event of its last
 * child; baseline: the bench applies the same install and server-side-applies `renderDesired`'s
 * children itself, one by one, ended the same way.
 * At each scale N (`BENCH_OPERATOR_INSTALLS`, default 50,200; the README's table adds 1000):
 * cold start: N installs exist before the operator starts; time from its start until every child
 * exists and every status has observedGeneration, its API requests per install (its
 * `pelita_operator_kube_requests_total`) and its reconcile p99, then again for a restart over the
 * settled installs; baseline: the bench applying the N installs' children sequentially.
 * Memory: the operator's RSS idle (no install), settled with N installs and restarted over them,
 * each read 30 s after the queue emptied; per install = (settled − idle) / N. The operator runs
 * with the Node flags of its image (operator-process.ts).
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
  toClientModel,
  type PlatformInstallSpecInput,
  type PolicyFiles,
} from '@pelita/operator';
import { ClusterView, objectKey, startPrivateCluster, type PrivateCluster } from './kube';
import { ratio } from './load';
import { MEMORY_SETTLE_MS, settled, startOperator, type OperatorProcess } from './operator-process';
import { percentile, report, table, timingRow } from './report';

const SEQUENTIAL_INSTALLS = 20;
/** The scales measured: `BENCH_OPERATOR_INSTALLS=50,200,1000` for the README's table. */
const SCALES = (process.env.BENCH_OPERATOR_INSTALLS || '50,200')
  .split(',')
  .map((n) => Number(n.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
/** Installs applied at once while setting a scale up (not measured). */
const SETUP_CONCURRENCY = 8;
/** Requests that change something: on a restart over settled installs there should be none. */
const WRITE_VERBS = ['apply', 'patch', 'create', 'update', 'delete'];
const RECONCILE_SECONDS = 'pelita_operator_reconcile_duration_seconds';
const FIELD_MANAGER = 'pelita-bench';
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
    for (const namespace of ['sequential', 'direct']) {
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

    // 2. At each scale: a cold start, a restart over the settled installs, the direct baseline.
    const scales: ScaleFigures[] = [];
    for (const installs of SCALES) {
      scales.push(await measureScale(cluster, view, policies, installs, childCount));
    }

    // 3. Memory and cost per install, every scale side by side.
    report(
      '\noperator at scale (RSS: process_resident_memory_bytes; per install: (settled − idle) / N)',
    );
    report(`idle, 0 installs: ${mib(idleRss)} MiB`);
    table(
      scales.map((figures) => ({
        N: figures.installs,
        'settled MiB': mib(figures.settledRss),
        'MiB/install': mib((figures.settledRss - idleRss) / figures.installs, 2),
        'restarted MiB': mib(figures.restartedRss),
        'cold s/install': (figures.coldMs / 1000 / figures.installs).toFixed(3),
        'direct s/install': (figures.directMs / 1000 / figures.installs).toFixed(3),
        'cold/direct': ratio(figures.coldMs, figures.directMs),
        'cold req/install': (figures.coldRequests / figures.installs).toFixed(1),
        'restart req/install': (figures.restartRequests / figures.installs).toFixed(2),
        'restart writes/install': (figures.restartWrites / figures.installs).toFixed(2),
        'reconcile p99 s': figures.coldP99.toFixed(3),
      })),
    );
  } finally {
    await operator?.stop();
    view.stop();
    await cluster.stop();
  }
}

interface ScaleFigures {
  installs: number;
  coldMs: number;
  directMs: number;
  coldRequests: number;
  restartRequests: number;
  restartWrites: number;
  coldP99: number;
  settledRss: number;
  restartedRss: number;
}

/**
 * N installs exist before the operator starts (namespace `cold-N`): its cold start, then a restart
 * over the settled installs; then the baseline applies the same children (namespace `direct-N`).
 */
async function measureScale(
  cluster: PrivateCluster,
  view: ClusterView,
  policies: PolicyFiles,
  installs: number,
  childCount: number,
): Promise<ScaleFigures> {
  const cold = `cold-${installs}`;
  const direct = `direct-${installs}`;
  for (const namespace of [cold, direct]) await cluster.createNamespace(namespace);
  const names = Array.from({ length: installs }, (_, i) => `tenant-${i}`);
  // Generous: on a loaded machine a cold start took 1.1 s an install.
  const timeoutMs = Math.max(180_000, installs * 3000);
  await inParallel(names, (name) => cluster.apply(platformInstall(cold, name), FIELD_MANAGER));

  const coldStarted = performance.now();
  let operator = await startOperator(cluster.kubeconfigPath, cold);
  try {
    const coldDone = await view.until(
      () => view.observedIn(cold) >= installs && view.presentIn(cold) >= installs * childCount,
      `cold start of ${installs}`,
      timeoutMs,
    );
    const coldMs = coldDone - coldStarted;
    const coldRequests = await operator.metric(REQUESTS);
    await settled(operator, installs, timeoutMs);
    const settledRequests = await operator.metric(REQUESTS);
    const coldErrors = await operator.metric('pelita_operator_reconcile_errors_total');
    const coldP99 = await operator.quantile(RECONCILE_SECONDS, 0.99);
    await sleep(MEMORY_SETTLE_MS);
    const settledRss = await operator.metric(RSS);
    await operator.stop();

    // A restart over settled installs: every child is in the cache and matches, so no writes.
    operator = await startOperator(cluster.kubeconfigPath, cold);
    await settled(operator, installs, timeoutMs);
    const restartRequests = await operator.metric(REQUESTS);
    const restartVerbs = await operator.series(REQUESTS);
    const restartP99 = await operator.quantile(RECONCILE_SECONDS, 0.99);
    await sleep(MEMORY_SETTLE_MS);
    const restartedRss = await operator.metric(RSS);
    await operator.stop();

    const directInstalls = await inParallel(names, (name) =>
      cluster.apply(platformInstall(direct, name), FIELD_MANAGER),
    );
    const directStarted = performance.now();
    for (const install of directInstalls) await applyChildren(cluster, install, policies);
    const directDone = await view.until(
      () => view.presentIn(direct) >= installs * childCount,
      `direct apply of ${installs}`,
      timeoutMs,
    );
    const directMs = directDone - directStarted;

    const restartWrites = Object.entries(restartVerbs)
      .filter(([labels]) => WRITE_VERBS.some((verb) => labels === `verb="${verb}"`))
      .reduce((sum, [, count]) => sum + count, 0);
    report(
      `\ncold start: ${installs} installs (${installs * childCount} children) exist ` +
        'before the operator starts; from its spawn to every child and status observed',
    );
    table([
      {
        what: 'operator cold start',
        'total s': (coldMs / 1000).toFixed(2),
        'installs/s': (installs / (coldMs / 1000)).toFixed(1),
        'API requests/install': (coldRequests / installs).toFixed(1),
      },
      {
        what: 'baseline: direct sequential apply of the children',
        'total s': (directMs / 1000).toFixed(2),
        'installs/s': (installs / (directMs / 1000)).toFixed(1),
        'API requests/install': childCount,
      },
    ]);
    report(
      `operator/direct time ratio: ${ratio(coldMs, directMs)}; requests/install once settled ` +
        `(status events handled): ${(settledRequests / installs).toFixed(1)}; ` +
        `reconcile errors: ${coldErrors}; reconcile p99 ${coldP99.toFixed(3)} s`,
    );
    report(
      `re-sync after a restart over the ${installs} settled installs: ` +
        `${restartRequests} requests, ${(restartRequests / installs).toFixed(2)} per install, ` +
        `${restartWrites} writes (${Object.entries(restartVerbs)
          .map(([verb, count]) => `${verb} ${count}`)
          .join(', ')}); reconcile p99 ${restartP99.toFixed(3)} s`,
    );
    report(
      `RSS settled ${mib(settledRss)} MiB, restarted ${mib(restartedRss)} MiB ` +
        `(${installs} installs)`,
    );
    return {
      installs,
      coldMs,
      directMs,
      coldRequests,
      restartRequests,
      restartWrites,
      coldP99,
      settledRss,
      restartedRss,
    };
  } finally {
    await operator.stop();
  }
}

/** Runs `task` over `items`, SETUP_CONCURRENCY at a time; the results in the items' order. */
async function inParallel<T, R>(items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: SETUP_CONCURRENCY }, worker));
  return results;
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

/**
 * The baseline: the same children, server-side applied one at a time, through client-node as the
 * operator sends them (toClientModel: without it a NetworkPolicy's rules would arrive without
 * their peers, a smaller request than the operator's).
 */
async function applyChildren(
  cluster: PrivateCluster,
  install: KubernetesObject,
  policies: PolicyFiles,
): Promise<void> {
  for (const child of render(install, policies)) {
    await cluster.apply(toClientModel(child), FIELD_MANAGER);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function mib(bytes: number, digits = 1): string {
  return (bytes / 1024 / 1024).toFixed(digits);
}
