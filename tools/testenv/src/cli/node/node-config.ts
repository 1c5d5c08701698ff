// The real node's configuration files (containerd, CNI, kubelet, kube-proxy, CoreDNS), as pure
// functions of its paths and addresses, so a unit test can read them without a node.
import path from 'node:path';
import { SERVICE_CIDR } from '../../lib/kube-apiserver-config';
import { type Settings } from '../../lib/settings';

export { SERVICE_CIDR };

export const NODE_NAME = 'pelita-node';
/** The bridge the pods live on; its address is the node's address. Nothing else is attached. */
export const BRIDGE = 'pelita0';
export const NODE_IP = '10.244.0.1';
const POD_CIDR = '10.244.0.0/24';
/** Label and taint of the real node: only pods that ask for it land here, never by accident. */
export const NODE_LABEL = { key: 'pelita.io/node', value: 'real' } as const;
export const NODE_TAINT = { key: 'pelita.io/node', value: 'real', effect: 'NoSchedule' } as const;
/** The sandbox image the kubelet asks containerd for; made locally (pause-image.ts). */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
export const KUBELET_HEALTHZ_PORT = 50248;
export const KUBE_PROXY_HEALTHZ_PORT = 50256;
export const COREDNS_HEALTH_PORT = 50253;

export function nodePaths(settings: Pick<Settings, 'dir'>) {
  const dir = path.join(settings.dir, 'node');
  return {
    dir,
    containerdConfig: path.join(dir, 'containerd.toml'),
    containerdRoot: path.join(dir, 'containerd', 'root'),
    containerdState: path.join(dir, 'containerd', 'state'),
    containerdSocket: path.join(dir, 'containerd', 'containerd.sock'),
    cniConfDir: path.join(dir, 'cni'),
    cniDataDir: path.join(dir, 'cni-ipam'),
    kubeletConfig: path.join(dir, 'kubelet.yaml'),
    kubeletRoot: path.join(dir, 'kubelet'),
    podLogs: path.join(dir, 'pod-logs'),
    resolvConf: path.join(dir, 'resolv.conf'),
    kubeProxyConfig: path.join(dir, 'kube-proxy.yaml'),
    corefile: path.join(dir, 'Corefile'),
    /** The host's values before the node changed them, restored by stop(). */
    savedSysctls: path.join(dir, 'saved-sysctls.json'),
  };
}

export type NodePaths = ReturnType<typeof nodePaths>;

/**
 * containerd 1.6's CRI plugin. restrict_oom_score_adj: root here lacks CAP_SYS_RESOURCE, and
 * runc fails ("can't get final child's PID from pipe") when asked to lower a score.
 */
export function containerdToml(paths: NodePaths): string {
  return `version = 2
root = "${paths.containerdRoot}"
state = "${paths.containerdState}"

[grpc]
  address = "${paths.containerdSocket}"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${paths.cniConfDir}"
`;
}

/**
 * A bridge whose address is the pods' gateway, but only towards Service IPs (kube-proxy's DNAT
 * runs on the host): no default route, no masquerade, so a pod has no way out of this machine.
 */
export function cniConflist(paths: NodePaths) {
  return {
    cniVersion: '1.0.0',
    name: 'pelita',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE,
        isGateway: true,
        isDefaultGateway: false,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          dataDir: paths.cniDataDir,
          ranges: [[{ subnet: POD_CIDR, gateway: NODE_IP }]],
          routes: [{ dst: SERVICE_CIDR }],
        },
      },
      { type: 'loopback' },
    ],
  };
}

/** The kubelet as issue 22 found it works here (cgroups v1, no swap check, no iptables chains). */
export function kubeletConfig(paths: NodePaths) {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: NODE_IP,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: KUBELET_HEALTHZ_PORT,
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    failSwapOn: false,
    makeIPTablesUtilChains: false,
    oomScoreAdj: 0,
    // Images are imported, never pulled: garbage-collecting one would break the next pod.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // A shared test machine's disk and memory are not this node's to guard: no evictions.
    evictionHard: { 'memory.available': '0%', 'nodefs.available': '0%', 'imagefs.available': '0%' },
    clusterDNS: [NODE_IP],
    clusterDomain: 'cluster.local',
    resolvConf: paths.resolvConf,
    podLogsDir: paths.podLogs,
    // The apiserver reaches /logs and /exec without a client certificate; the port listens on
    // the bridge address only.
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    registerWithTaints: [NODE_TAINT],
    serializeImagePulls: false,
  };
}

export function kubeletArgs(paths: NodePaths, kubeconfig: string): string[] {
  return [
    `--config=${paths.kubeletConfig}`,
    `--kubeconfig=${kubeconfig}`,
    `--root-dir=${paths.kubeletRoot}`,
    `--hostname-override=${NODE_NAME}`,
    `--node-ip=${NODE_IP}`,
    `--node-labels=${NODE_LABEL.key}=${NODE_LABEL.value}`,
  ];
}

/**
 * nftables mode. masqueradeAll: a pod calling a Service whose endpoint is a pod on the same bridge
 * must get the answer back through the host (no br_netfilter here), so Service traffic is
 * masqueraded to the bridge address. Conntrack sysctls are left alone (0 = do not set).
 */
export function kubeProxyConfig(kubeconfig: string) {
  return {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'nftables',
    clientConnection: { kubeconfig },
    hostnameOverride: NODE_NAME,
    bindAddress: NODE_IP,
    healthzBindAddress: `127.0.0.1:${KUBE_PROXY_HEALTHZ_PORT}`,
    metricsBindAddress: '127.0.0.1:50249',
    clusterCIDR: POD_CIDR,
    nodePortAddresses: [`${NODE_IP}/32`],
    nftables: { masqueradeAll: true },
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
  };
}

/** Service names only; any other name is NXDOMAIN: nothing is forwarded off this machine. */
export function corefile(kubeconfig: string): string {
  return `cluster.local:53 in-addr.arpa:53 {
    bind ${NODE_IP}
    errors
    health 127.0.0.1:${COREDNS_HEALTH_PORT}
    kubernetes cluster.local in-addr.arpa {
        kubeconfig ${kubeconfig} pelita-testenv
        pods insecure
    }
}
.:53 {
    bind ${NODE_IP}
    template ANY ANY {
        rcode NXDOMAIN
    }
}
`;
}

/**
 * The test servers listen on loopback; pods reach them at the node's address on the same port
 * through the relay (relay.ts): PostgreSQL, Redis, OpenSearch, MinIO, SMTP, and the apiserver
 * (the `kubernetes` Service's endpoint).
 */
export const RELAYED_PORTS = [55432, 56379, 59200, 59000, 52525, 56443] as const;
