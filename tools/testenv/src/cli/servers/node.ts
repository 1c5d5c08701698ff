// A real Kubernetes node beside kwok's fake ones: containerd (CRI) with runc and a CNI bridge, a
// kubelet joined to the kube server's apiserver, kube-proxy (nftables) for Service IPs, CoreDNS for
// Service names, and a relay that makes the loopback test servers reachable from pods at the
// node's address. It runs as root (runc, mounts, the bridge) and is tainted and labelled
// (node-config.ts), so only pods that ask for it land here: the operator's tests keep kwok.
//
// One server, like kube: start() brings the processes up in order. The kubelet owns the
// conventional node.pid; the others have <dir>/node/<process>.pid. stop() also removes the pods'
// containers, mounts and network, and restores what the node changed on the host.
import fs from 'node:fs';
import path from 'node:path';
import { kubeFiles, kubeRequest, apiserverReady } from '../../lib/kube-apiserver-config';
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
  COREDNS,
  COREDNS_WRAPPER,
  CRICTL,
  KUBELET,
  KUBE_PROXY,
  KUBERNETES,
} from '../kube-binaries';
import { APISERVER_PORT } from '../kube-control-plane';
import { tearDownHostNetwork, setUpHostNetwork } from '../node/host-network';
import {
  COREDNS_HEALTH_PORT,
  KUBELET_HEALTHZ_PORT,
  KUBE_PROXY_HEALTHZ_PORT,
  NODE_IP,
  NODE_NAME,
  NODE_LABEL,
  NODE_TAINT,
  RELAYED_PORTS,
  cniConflist,
  containerdToml,
  corefile,
  kubeProxyConfig,
  kubeletArgs,
  kubeletConfig,
  nodePaths,
} from '../node/node-config';
import { buildPause, importPauseImage, pauseBinary } from '../node/pause-image';
import { httpOk } from '../probes';
import { findExecutable, readLivePid, run, spawnDaemon, stopDaemon, tail } from '../proc';
import { type Server, serverPaths } from '../server';

const NAME = 'node';
const APISERVER_URL = `https://127.0.0.1:${APISERVER_PORT}`;
/** Debian packages: the runtime, the CNI plugins, nft for the firewall table and kube-proxy. */
const PACKAGES = ['containerd', 'runc', 'containernetworking-plugins', 'nftables', 'buildah'];
const EXECUTABLES = ['containerd', 'ctr', 'runc', 'nft', 'buildah'];
const CNI_BRIDGE_PLUGIN = '/usr/lib/cni/bridge';
const PROCESSES = ['containerd', 'relay', 'kubelet', 'kube-proxy', 'coredns'] as const;
type Process = (typeof PROCESSES)[number];
const RELAY_SCRIPT = path.join(__dirname, '..', 'node', 'relay.js');

function processPaths(settings: Settings, process: Process) {
  const { dir, pidFile } = serverPaths(settings, NAME);
  return {
    pidFile: process === 'kubelet' ? pidFile : path.join(dir, `${process}.pid`),
    logFile: path.join(dir, `${process}.log`),
  };
}

const isAlive = (settings: Settings, process: Process) =>
  readLivePid(processPaths(settings, process).pidFile) !== undefined;

/** As root, whatever the other servers run as: runc, mounts and the bridge need it. */
function launch(settings: Settings, process: Process, command: string, args: string[]): void {
  if (isAlive(settings, process)) return;
  spawnDaemon({
    command,
    args,
    cwd: nodePaths(settings).dir,
    account: undefined,
    ...processPaths(settings, process),
  });
}

async function awaitUp(
  settings: Settings,
  process: Process,
  probe: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const state = await waitFor(
    async () => (isAlive(settings, process) ? (await probe()) && 'ready' : 'exited'),
    { what: process, timeoutMs, intervalMs: 250 },
  ).catch(() => 'not ready');
  if (state === 'ready') return;
  const { logFile } = processPaths(settings, process);
  const log = fs.existsSync(logFile) ? tail(fs.readFileSync(logFile, 'utf8'), 25) : '(no log)';
  throw new Error(`${process} ${state}; end of ${logFile}:\n${log}`);
}

const readCa = (settings: Settings) => fs.readFileSync(kubeFiles(settings).caCert, 'utf8');

interface NodeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

async function nodeReady(settings: Settings): Promise<boolean> {
  const { status, body } = await kubeRequest(
    `${APISERVER_URL}/api/v1/nodes/${NODE_NAME}`,
    readCa(settings),
  );
  if (status !== 200) return false;
  const node = JSON.parse(body) as NodeObject;
  return !!node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * The `kubernetes` Service has no endpoints (the apiserver runs with the reconciler off: it
 * listens on loopback); pods reach it at the node's address, through the relay.
 */
const apiserverEndpoints = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: 'kubernetes-pelita-node',
    namespace: 'default',
    labels: {
      'kubernetes.io/service-name': 'kubernetes',
      'endpointslice.kubernetes.io/managed-by': 'testenv.pelita.io',
    },
  },
  addressType: 'IPv4',
  endpoints: [{ addresses: [NODE_IP], conditions: { ready: true } }],
  ports: [{ name: 'https', port: APISERVER_PORT, protocol: 'TCP' }],
};

/** Constant content: one that exists already is the same. */
async function createApiserverEndpoints(settings: Settings): Promise<void> {
  const url = `${APISERVER_URL}/apis/discovery.k8s.io/v1/namespaces/default/endpointslices`;
  const { status, body } = await kubeRequest(url, readCa(settings), {
    method: 'POST',
    body: apiserverEndpoints,
  });
  if (status !== 201 && status !== 409)
    throw new Error(`creating the apiserver's endpoints: ${body}`);
}

function writeConfigs(settings: Settings): void {
  const paths = nodePaths(settings);
  const { kubeconfig } = kubeFiles(settings);
  for (const dir of [paths.dir, paths.cniConfDir, paths.kubeletRoot, paths.podLogs]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.writeFileSync(paths.containerdConfig, containerdToml(paths));
  fs.writeFileSync(
    path.join(paths.cniConfDir, '10-pelita.conflist'),
    `${JSON.stringify(cniConflist(paths), null, 2)}\n`,
  );
  fs.writeFileSync(paths.kubeletConfig, `${JSON.stringify(kubeletConfig(paths), null, 2)}\n`);
  fs.writeFileSync(
    paths.kubeProxyConfig,
    `${JSON.stringify(kubeProxyConfig(kubeconfig), null, 2)}\n`,
  );
  fs.writeFileSync(paths.corefile, corefile(kubeconfig));
  // Pods with dnsPolicy Default get no resolver: no name may resolve off this machine.
  fs.writeFileSync(paths.resolvConf, '');
}

/** Kills what runs in the node's containers and removes them, their mounts and network. */
async function removePods(settings: Settings): Promise<void> {
  const paths = nodePaths(settings);
  if (isAlive(settings, 'containerd')) {
    // crictl goes through the CRI plugin, which also tears down each pod's network (CNI DEL).
    const crictl = (...args: string[]) =>
      run(goBinaryPath(settings, CRICTL), [
        `--runtime-endpoint=unix://${paths.containerdSocket}`,
        '--timeout=30s',
        ...args,
      ]);
    await crictl('stopp', ...(await crictl('pods', '-q')).stdout.split('\n').filter(Boolean));
    await crictl('rmp', '--all', '--force');
  }
  // What a crash left behind: mounts under the node's directory (deepest first).
  const mounts = fs
    .readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mount) => mount.startsWith(`${paths.dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const mount of mounts) await run('umount', ['--lazy', mount]);
}

export const node: Server = {
  name: NAME,
  e2eOnly: true,
  startTimeoutMs: 120_000,

  isInstalled: (settings) =>
    [KUBELET, KUBE_PROXY, COREDNS, CRICTL].every((p) => isGoBinaryCurrent(settings, p)) &&
    fs.existsSync(pauseBinary(settings)) &&
    fs.existsSync(CNI_BRIDGE_PLUGIN) &&
    EXECUTABLES.every((name) => findExecutable(name) !== undefined),

  async install(ctx) {
    if (process.getuid?.() !== 0)
      throw new Error('the real node needs root (runc, mounts, bridge)');
    const stale = (programs: GoProgram[]) =>
      programs.filter((program) => !isGoBinaryCurrent(ctx, program));
    await Promise.all([
      ctx.apt(PACKAGES),
      goBuildWrapper(ctx, KUBERNETES, stale([KUBELET, KUBE_PROXY])),
      goBuildWrapper(ctx, COREDNS_WRAPPER, stale([COREDNS])),
      isGoBinaryCurrent(ctx, CRICTL) ? undefined : goInstall(ctx, CRICTL),
      buildPause(ctx),
    ]);
  },

  async start(ctx) {
    const paths = nodePaths(ctx);
    const { kubeconfig } = kubeFiles(ctx);
    // The kube server starts concurrently; its first start on a fresh machine builds for minutes.
    ctx.log(NAME, 'waiting for the apiserver');
    await waitFor(
      () => fs.existsSync(kubeFiles(ctx).caCert) && apiserverReady(APISERVER_URL, readCa(ctx)),
      {
        what: 'the apiserver (kube server)',
        timeoutMs: 60 * 60_000,
        intervalMs: 1_000,
      },
    );
    writeConfigs(ctx);
    await setUpHostNetwork(paths);

    launch(ctx, 'containerd', 'containerd', ['--config', paths.containerdConfig]);
    await awaitUp(
      ctx,
      'containerd',
      async () => (await run('ctr', ['--address', paths.containerdSocket, 'version'])).code === 0,
    );
    await importPauseImage(ctx, paths);

    launch(ctx, 'relay', process.execPath, [RELAY_SCRIPT, NODE_IP, ...RELAYED_PORTS.map(String)]);
    launch(ctx, 'kubelet', goBinaryPath(ctx, KUBELET), kubeletArgs(paths, kubeconfig));
    await awaitUp(ctx, 'kubelet', () => nodeReady(ctx), 90_000);
    await createApiserverEndpoints(ctx);

    launch(ctx, 'kube-proxy', goBinaryPath(ctx, KUBE_PROXY), [`--config=${paths.kubeProxyConfig}`]);
    launch(ctx, 'coredns', goBinaryPath(ctx, COREDNS), ['-conf', paths.corefile]);
    await awaitUp(ctx, 'kube-proxy', () =>
      httpOk(`http://127.0.0.1:${KUBE_PROXY_HEALTHZ_PORT}/healthz`),
    );
    await awaitUp(ctx, 'coredns', () => httpOk(`http://127.0.0.1:${COREDNS_HEALTH_PORT}/health`));
  },

  async isReady(settings) {
    if (!PROCESSES.every((process) => isAlive(settings, process))) return false;
    const probes = await Promise.all([
      httpOk(`http://127.0.0.1:${KUBELET_HEALTHZ_PORT}/healthz`),
      httpOk(`http://127.0.0.1:${KUBE_PROXY_HEALTHZ_PORT}/healthz`),
      httpOk(`http://127.0.0.1:${COREDNS_HEALTH_PORT}/health`),
      nodeReady(settings),
    ]);
    return probes.every(Boolean);
  },

  env: (settings) => ({
    REAL_NODE_NAME: NODE_NAME,
    REAL_NODE_ADDRESS: NODE_IP,
    REAL_NODE_SELECTOR: `${NODE_LABEL.key}=${NODE_LABEL.value}`,
    REAL_NODE_TAINT: `${NODE_TAINT.key}=${NODE_TAINT.value}:${NODE_TAINT.effect}`,
    CONTAINERD_ADDRESS: nodePaths(settings).containerdSocket,
    CRICTL_BIN: goBinaryPath(settings, CRICTL),
  }),

  async stop(settings) {
    const stop = (process: Process) =>
      stopDaemon(processPaths(settings, process).pidFile, 'SIGTERM');
    // The kubelet first, so it does not restart the containers removed below.
    await stop('kubelet');
    await Promise.all([stop('kube-proxy'), stop('coredns'), stop('relay')]);
    await removePods(settings);
    await stop('containerd');
    await removePods(settings);
    await tearDownHostNetwork(nodePaths(settings));
  },
};
