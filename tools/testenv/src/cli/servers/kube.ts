// A real Kubernetes control plane without a container engine: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, and kwok, whose fake nodes mark pods Running and Ready
// (Deployments and StatefulSets become Ready). All built from source (kube-binaries.ts).
//
// One server, not five: the orchestrator starts servers concurrently, and these must come up in
// order (etcd, apiserver, then the fake nodes and the controllers). start() therefore waits for
// each step itself. The apiserver owns the conventional kube.pid (what the orchestrator watches);
// every process has <dir>/kube/<process>.log, the others also <process>.pid.
import fs from 'node:fs';
import path from 'node:path';
import {
  apiserverArgs,
  apiserverReady,
  kubeconfigYaml,
  kubeFiles,
  kubeRequest,
} from '../../lib/kube-apiserver-config';
import { type Settings } from '../../lib/settings';
import { waitFor } from '../../lib/wait-for';
import {
  type GoProgram,
  goBinaryPath,
  goBuildWrapper,
  goInstall,
  isGoBinaryCurrent,
} from '../go-binary';
import {
  CONTROL_PLANE,
  ETCD,
  ETCD_WRAPPER,
  HELM,
  KUBE_APISERVER,
  KUBE_CONTROLLER_MANAGER,
  KUBE_SCHEDULER,
  KUBE_VERSION,
  KUBECTL,
  KUBERNETES,
  KWOK,
  areKubeBinariesCurrent,
} from '../kube-binaries';
import {
  APISERVER_PORT,
  CONTROLLER_MANAGER_PORT,
  ETCD_PEER_PORT,
  ETCD_URL,
  SCHEDULER_PORT,
  SHARED_ETCD_PREFIX,
  ensurePki,
} from '../kube-control-plane';
import { httpOk } from '../probes';
import { findExecutable, readLivePid, spawnDaemon, stopDaemon, tail } from '../proc';
import { type Context, type Server, serverHome, serverPaths, writeOwnedFile } from '../server';

const NAME = 'kube';
const APISERVER_URL = `https://127.0.0.1:${APISERVER_PORT}`;
const STAGES_FILE = path.join(__dirname, '..', '..', '..', 'kwok', 'stages.yaml');
const FAKE_NODES = ['kwok-node-0', 'kwok-node-1', 'kwok-node-2'];
const FAKE_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
const HELPERS = ['etcd', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
type Process = 'kube-apiserver' | (typeof HELPERS)[number];

function processPaths(settings: Settings, process: Process) {
  const { dir, pidFile } = serverPaths(settings, NAME);
  return {
    pidFile: process === 'kube-apiserver' ? pidFile : path.join(dir, `${process}.pid`),
    logFile: path.join(dir, `${process}.log`),
  };
}

const isAlive = (settings: Settings, process: Process) =>
  readLivePid(processPaths(settings, process).pidFile) !== undefined;

function launch(ctx: Context, process: Process, command: string, args: string[]): void {
  if (isAlive(ctx, process)) return;
  const { dir } = kubeFiles(ctx);
  spawnDaemon({
    command,
    args,
    cwd: dir,
    env: serverHome(ctx, dir),
    account: ctx.account,
    ...processPaths(ctx, process),
  });
}

function failure(settings: Settings, process: Process, why: string): Error {
  const { logFile } = processPaths(settings, process);
  const log = fs.existsSync(logFile) ? tail(fs.readFileSync(logFile, 'utf8'), 25) : '(no log)';
  return new Error(`${process} ${why}; end of ${logFile}:\n${log}`);
}

/** Waits until `probe` holds; an exit or a timeout is an error carrying the end of the log. */
async function awaitUp(
  ctx: Context,
  process: Process,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const state = await waitFor(
    async () => (isAlive(ctx, process) ? (await probe()) && 'ready' : 'exited'),
    { what: process, timeoutMs, intervalMs: 250 },
  ).catch(() => 'not ready');
  if (state === 'ready') return;
  throw failure(
    ctx,
    process,
    state === 'exited' ? 'exited' : `not ready after ${timeoutMs / 1000}s`,
  );
}

/** Big, untainted, and marked for kwok: every pod lands on one of them. */
function fakeNode(name: string) {
  const resources = { cpu: '32', memory: '256Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [FAKE_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        type: 'kwok',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
    },
    // A Node's status is kept on create (kubelets register that way); kwok fills the rest.
    status: { allocatable: resources, capacity: resources, phase: 'Running' },
  };
}

async function createFakeNodes(caCert: string): Promise<void> {
  for (const name of FAKE_NODES) {
    const { status, body } = await kubeRequest(`${APISERVER_URL}/api/v1/nodes`, caCert, {
      method: 'POST',
      body: fakeNode(name),
    });
    if (status !== 201 && status !== 409) throw new Error(`creating node ${name}: ${body}`);
  }
}

interface NodeList {
  items: {
    spec?: { taints?: unknown[] };
    status?: { conditions?: { type: string; status: string }[] };
  }[];
}

/** Every fake node Ready and untainted (the controller manager removes its not-ready taints). */
async function fakeNodesReady(caCert: string): Promise<boolean> {
  const selector = encodeURIComponent('type=kwok');
  const { status, body } = await kubeRequest(
    `${APISERVER_URL}/api/v1/nodes?labelSelector=${selector}`,
    caCert,
  );
  if (status !== 200) return false;
  const ready = (JSON.parse(body) as NodeList).items.filter(
    (node) =>
      (node.spec?.taints ?? []).length === 0 &&
      node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  return ready.length === FAKE_NODES.length;
}

const etcdHealthy = () =>
  httpOk(
    `${ETCD_URL}/health`,
    (body) => (JSON.parse(body) as { health?: string }).health === 'true',
  );

function etcdArgs(settings: Settings): string[] {
  const peer = `http://127.0.0.1:${ETCD_PEER_PORT}`;
  return [
    '--name=pelita',
    `--data-dir=${path.join(kubeFiles(settings).dir, 'etcd-data')}`,
    `--listen-client-urls=${ETCD_URL}`,
    `--advertise-client-urls=${ETCD_URL}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=pelita=${peer}`,
    // Test data is disposable: trade crash safety for speed, as with PostgreSQL.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

/**
 * The controller manager and the scheduler talk to the apiserver as admin. Their own HTTPS port
 * serves only /healthz and /readyz (no authentication kubeconfig: that would also want a
 * request-header CA the apiserver does not have, and log its absence every few seconds).
 */
function clientArgs(kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    // One instance each: no leases to wait for after a restart.
    '--leader-elect=false',
  ];
}

export const kube: Server = {
  name: NAME,
  startTimeoutMs: 60_000,

  isInstalled: (settings) => areKubeBinariesCurrent(settings) && !!findExecutable('openssl'),

  async install(ctx) {
    const stale = (programs: GoProgram[]) =>
      programs.filter((program) => !isGoBinaryCurrent(ctx, program));
    await Promise.all([
      findExecutable('openssl') ? undefined : ctx.apt(['openssl']),
      goBuildWrapper(ctx, KUBERNETES, stale(CONTROL_PLANE)),
      goBuildWrapper(ctx, ETCD_WRAPPER, stale([ETCD])),
      isGoBinaryCurrent(ctx, KWOK) ? undefined : goInstall(ctx, KWOK),
      isGoBinaryCurrent(ctx, HELM) ? undefined : goInstall(ctx, HELM),
    ]);
  },

  async start(ctx) {
    const files = kubeFiles(ctx);
    await ensurePki(ctx, files);
    const caCert = fs.readFileSync(files.caCert, 'utf8');
    writeOwnedFile(ctx, files.kubeconfig, kubeconfigYaml(APISERVER_URL, caCert));
    const bin = (program: GoProgram) => goBinaryPath(ctx, program);

    launch(ctx, 'etcd', bin(ETCD), etcdArgs(ctx));
    await awaitUp(ctx, 'etcd', etcdHealthy, 30_000);

    const options = { files, port: APISERVER_PORT, etcdUrl: ETCD_URL };
    const args = apiserverArgs({ ...options, etcdPrefix: SHARED_ETCD_PREFIX });
    launch(ctx, 'kube-apiserver', bin(KUBE_APISERVER), args);
    await awaitUp(ctx, 'kube-apiserver', () => apiserverReady(APISERVER_URL, caCert), 120_000);
    await createFakeNodes(caCert);

    launch(ctx, 'kube-controller-manager', bin(KUBE_CONTROLLER_MANAGER), [
      ...clientArgs(files.kubeconfig, CONTROLLER_MANAGER_PORT),
      // Every default controller (GC, namespace, deployment, replicaset, statefulset, PV binder,
      // service-account and token ones); the key signs service-account tokens.
      '--controllers=*',
      `--service-account-private-key-file=${files.serviceAccountKey}`,
      `--root-ca-file=${files.caCert}`,
      // The default, /usr/libexec/kubernetes/..., is not writable by the server account.
      `--flex-volume-plugin-dir=${path.join(files.dir, 'volume-plugins')}`,
      // kwok renews the fake nodes' leases; on a loaded 2-core machine (a cold Go build beside
      // the tests) a renewal can lag past the 50 s default, the nodes turn NotReady and their
      // pods are marked unready for good (kwok does not mark them ready again).
      '--node-monitor-grace-period=10m',
    ]);
    launch(
      ctx,
      'kube-scheduler',
      bin(KUBE_SCHEDULER),
      clientArgs(files.kubeconfig, SCHEDULER_PORT),
    );
    launch(ctx, 'kwok', bin(KWOK), [
      `--kubeconfig=${files.kubeconfig}`,
      `--config=${STAGES_FILE}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${FAKE_NODE_ANNOTATION}=fake`,
      // Pod IPs come from this range; the default /24 runs out after 254 live pods.
      '--cidr=10.0.0.0/16',
    ]);
    await awaitUp(ctx, 'kwok', () => fakeNodesReady(caCert), 60_000);
    // The controller manager and the scheduler have no probe here; a bad flag makes them exit.
    const exited = HELPERS.find((process) => !isAlive(ctx, process));
    if (exited !== undefined) throw failure(ctx, exited, 'exited');
  },

  async isReady(settings) {
    if (!HELPERS.every((process) => isAlive(settings, process))) return false;
    const caCert = fs.readFileSync(kubeFiles(settings).caCert, 'utf8');
    return (await apiserverReady(APISERVER_URL, caCert)) && (await fakeNodesReady(caCert));
  },

  env: (settings) => ({
    KUBECONFIG: kubeFiles(settings).kubeconfig,
    KUBE_APISERVER_URL: APISERVER_URL,
    KUBE_VERSION,
    KUBE_APISERVER_BIN: goBinaryPath(settings, KUBE_APISERVER),
    KUBECTL_BIN: goBinaryPath(settings, KUBECTL),
    HELM_BIN: goBinaryPath(settings, HELM),
    KWOK_BIN: goBinaryPath(settings, KWOK),
    ETCD_URL,
  }),

  async stop(settings) {
    const stop = (process: Process) =>
      stopDaemon(processPaths(settings, process).pidFile, 'SIGTERM');
    // The apiserver's clients first, etcd last: nothing logs a lost backend on the way down.
    const clients: Process[] = ['kwok', 'kube-scheduler', 'kube-controller-manager'];
    await Promise.all(clients.map(stop));
    await stop('kube-apiserver');
    await stop('etcd');
  },
};
