/**
 * What the operator's integration tests share: clients for a real apiserver, the CRD installed,
 * a namespace per test file (each operator process watches only its own, so test files running
 * in parallel never see each other's installs), and the operator started as a real process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { freePort, kubectlApply, requireEnv, waitFor } from '@pelita/testenv';
import { parse } from 'yaml';
import type { PlatformInstallSpecInput } from '../../src/crd/platform-install';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const CRD_FILE = path.join(REPO_ROOT, 'crds/platforminstalls.pelita.io.yaml');
const OPERATOR_MAIN = path.join(REPO_ROOT, 'operator/dist/main.js');

export interface Cluster {
  kubeconfigPath: string;
  config: KubeConfig;
  objects: KubernetesObjectApi;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
}

export function connect(kubeconfigPath = requireEnv('KUBECONFIG').KUBECONFIG): Cluster {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  return {
    kubeconfigPath,
    config,
    objects: KubernetesObjectApi.makeApiClient(config),
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
  };
}

/** Options making a generated client's patch call a JSON merge patch (`kubectl patch --type merge`). */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export const status = (err: unknown) => (err instanceof ApiException ? err.code : undefined);

/** Server-side apply as the test (another field manager than the operator's). */
export function apply<T extends KubernetesObject>(cluster: Cluster, object: T): Promise<T> {
  return cluster.objects.patch(
    object,
    undefined,
    undefined,
    'pelita-test',
    true,
    PatchStrategy.ServerSideApply,
  );
}

export async function exists(cluster: Cluster, ref: KubernetesObject): Promise<boolean> {
  try {
    await cluster.objects.read(ref as Parameters<KubernetesObjectApi['read']>[0]);
    return true;
  } catch (err) {
    if (status(err) === 404) return false;
    throw err;
  }
}

/** Installs (or updates) a CRD (by default the PlatformInstall one) and waits until it is served. */
export async function installCrd(cluster: Cluster, file = CRD_FILE): Promise<void> {
  const text = fs.readFileSync(file, 'utf8');
  const crd = parse(text) as KubernetesObject;
  kubectlApply(cluster.kubeconfigPath, text);
  await waitFor(
    async () => {
      const live = (await cluster.objects.read(crd as never)) as {
        status?: { conditions?: Array<{ type: string; status: string }> };
      };
      return (
        live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ??
        false
      );
    },
    { what: `CRD ${crd.metadata?.name} established`, timeoutMs: 30_000, intervalMs: 100 },
  );
}

/** The Prometheus Operator's CRD reduced to what the apiserver needs to serve the kind. */
export const SERVICE_MONITOR_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'servicemonitors.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: {
      plural: 'servicemonitors',
      singular: 'servicemonitor',
      kind: 'ServiceMonitor',
      listKind: 'ServiceMonitorList',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    ],
  },
};

export async function createNamespace(cluster: Cluster, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await cluster.core.createNamespace({ body: { metadata: { name } } });
  return name;
}

/**
 * Deletes a test's namespace. Its installs carry the operator's finalizer, which nobody removes
 * once the test's operator has stopped: it is taken off first, or the namespace would stay
 * Terminating on the shared apiserver.
 */
export async function deleteNamespace(cluster: Cluster, name: string): Promise<void> {
  const installs = (await cluster.custom
    .listNamespacedCustomObject({
      group: 'pelita.io',
      version: 'v1alpha1',
      plural: 'platforminstalls',
      namespace: name,
    })
    .catch(() => ({ items: [] }))) as { items: KubernetesObject[] };
  for (const install of installs.items) {
    if (!install.metadata?.finalizers?.length) continue;
    await patchInstall(cluster, name, install.metadata.name ?? '', {
      metadata: { finalizers: null },
    }).catch(() => undefined);
  }
  await cluster.core.deleteNamespace({ name }).catch(() => undefined);
}

/**
 * Dependencies the services enabled by default cannot start without (the CRD's CEL rules require
 * them); nothing here connects to them, pods run on kwok's fake nodes.
 */
export const TEST_DEPENDENCIES = {
  postgres: { url: 'postgres://postgres.test:5432/pelita' },
  redis: { url: 'redis://redis.test:6379/0' },
  opensearch: { url: 'http://opensearch.test:9200' },
  s3: {
    url: 'http://s3.test:9000',
    bucket: 'pelita',
    accessKeySecretRef: { name: 's3', key: 'access-key' },
    secretKeySecretRef: { name: 's3', key: 'secret-key' },
  },
  llm: { url: 'http://llm.test/v1', model: 'test-model' },
};

/**
 * A PlatformInstall of the web services only: the services not built and the document services
 * (OCR API and worker, office converter, OCR engine) are off unless `spec.services` turns them on.
 */
export function platformInstall(
  namespace: string,
  name: string,
  spec: Partial<PlatformInstallSpecInput> = {},
): KubernetesObject & { spec: PlatformInstallSpecInput } {
  const off = { enabled: false };
  return {
    apiVersion: 'pelita.io/v1alpha1',
    kind: 'PlatformInstall',
    metadata: { name, namespace },
    spec: {
      tenant: { id: name, displayName: `Tenant ${name}` },
      license: {
        clientId: 'client-1',
        apiUrl: 'https://license.example.com',
        credentialsSecretRef: { name: 'license' },
      },
      version: '1.0.0',
      dependencies: TEST_DEPENDENCIES,
      ...spec,
      services: {
        'license-service': off,
        'core-backend': off,
        'ocr-service': off,
        'ocr-worker': off,
        'office-converter': off,
        'ocr-engine': off,
        ...spec.services,
      },
    },
  };
}

export interface InstallStatus {
  observedGeneration?: number;
  conditions?: Array<{
    type: string;
    status: string;
    reason: string;
    message: string;
    lastTransitionTime: string;
    observedGeneration?: number;
  }>;
  services?: Record<string, { ready: number; desired: number }>;
}

export async function readInstall(
  cluster: Cluster,
  namespace: string,
  name: string,
): Promise<KubernetesObject & { spec: PlatformInstallSpecInput; status?: InstallStatus }> {
  return (await cluster.custom.getNamespacedCustomObject({
    group: 'pelita.io',
    version: 'v1alpha1',
    plural: 'platforminstalls',
    namespace,
    name,
  })) as KubernetesObject & { spec: PlatformInstallSpecInput; status?: InstallStatus };
}

export function condition(install: { status?: InstallStatus }, type: string) {
  return install.status?.conditions?.find((c) => c.type === type);
}

/** Merge-patches a PlatformInstall (spec or metadata), as `kubectl patch --type merge` would. */
export async function patchInstall(
  cluster: Cluster,
  namespace: string,
  name: string,
  patch: object,
): Promise<void> {
  await cluster.custom.patchNamespacedCustomObject(
    {
      group: 'pelita.io',
      version: 'v1alpha1',
      plural: 'platforminstalls',
      namespace,
      name,
      body: patch,
    },
    MERGE_PATCH,
  );
}

export interface OperatorProcess {
  child: ChildProcess;
  url: string;
  identity: string;
  /** Everything it logged so far (pino JSON lines). */
  logs(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash or a lost node would. */
  kill(): Promise<void>;
  metric(name: string): Promise<number | undefined>;
  /** Every sample of one scrape, by `name{labels}` as exposed (one scrape: values consistent). */
  metrics(): Promise<Map<string, number>>;
}

export async function startOperator(options: {
  kubeconfigPath: string;
  namespace: string;
  identity?: string;
  env?: Record<string, string>;
}): Promise<OperatorProcess> {
  const port = await freePort();
  const identity = options.identity ?? `operator-${randomBytes(3).toString('hex')}`;
  const child = spawn(process.execPath, [OPERATOR_MAIN], {
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: options.kubeconfigPath,
      PORT: String(port),
      LOG_LEVEL: 'debug',
      WATCH_NAMESPACE: options.namespace,
      LEADER_ELECTION_NAMESPACE: options.namespace,
      POD_NAME: identity,
      POD_NAMESPACE: options.namespace,
      POLICIES_DIR: path.join(REPO_ROOT, 'policies'),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`operator exited ${child.exitCode}:\n${output}`);
      return (await fetch(`${url}/readyz`)).ok;
    },
    { what: 'operator /readyz (built? npx tsc -b operator)', timeoutMs: 60_000, intervalMs: 100 },
  ).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    child,
    url,
    identity,
    logs: () => output,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    metric: async (name) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    },
    metrics: async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const samples = new Map<string, number>();
      for (const line of text.split('\n')) {
        if (line === '' || line.startsWith('#')) continue;
        const at = line.lastIndexOf(' ');
        samples.set(line.slice(0, at), Number(line.slice(at + 1)));
      }
      return samples;
    },
  };
}

/**
 * Makes `change` to objects of `kind`, then waits for the positive signal that the operator has
 * acted on it: its watch saw an event of that kind, and then nothing was queued or running. The
 * event's handler queues the install in the same tick as it counts the event, so once the count
 * has moved and the queue is idle, the reconcile the event asked for has finished. (Counting
 * reconciles instead missed it when that reconcile finished before the first look.) Assert
 * absence after this, never after a sleep.
 */
export async function changeAndAwaitReconcile(
  operator: OperatorProcess,
  kind: string,
  change: () => Promise<unknown>,
): Promise<void> {
  const watched = `pelita_operator_watch_events_total{kind="${kind}"}`;
  const seen = (await operator.metrics()).get(watched) ?? 0;
  await change();
  await waitFor(
    async () => {
      const samples = await operator.metrics();
      return (
        (samples.get(watched) ?? 0) > seen &&
        (samples.get('pelita_operator_queue_depth') ?? 0) === 0 &&
        (samples.get('pelita_operator_active_reconciles') ?? 0) === 0
      );
    },
    {
      what: `the ${kind} event seen by the watch and its reconcile done`,
      timeoutMs: 30_000,
      intervalMs: 50,
    },
  );
}
