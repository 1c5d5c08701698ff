// The Kubernetes programs, all built from source into <cache>/bin.
import path from 'node:path';
import { type Settings } from '../lib/settings';
import { type GoProgram, type GoWrapper, isGoBinaryCurrent } from './go-binary';

export const KUBE_VERSION = 'v1.34.4';

/** Committed wrapper modules (the same depth from src/cli/ and dist/cli/). */
const WRAPPERS_DIR = path.join(__dirname, '..', '..', 'go');

const kubeProgram = (binary: string): GoProgram => ({
  binary,
  module: `k8s.io/kubernetes/cmd/${binary}`,
  version: KUBE_VERSION,
});

export const KUBE_APISERVER = kubeProgram('kube-apiserver');
export const KUBE_CONTROLLER_MANAGER = kubeProgram('kube-controller-manager');
export const KUBE_SCHEDULER = kubeProgram('kube-scheduler');
export const KUBECTL = kubeProgram('kubectl');
/** The real node's (server `node`). */
export const KUBELET = kubeProgram('kubelet');
export const KUBE_PROXY = kubeProgram('kube-proxy');

/** What the kube server runs and exports; the node's two come from the same build. */
export const CONTROL_PLANE = [KUBE_APISERVER, KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KUBECTL];

/**
 * Without the version ldflags the binaries report v0.0.0 (kubectl and clients compare versions).
 */
const KUBE_LDFLAGS = [
  `-X k8s.io/component-base/version.gitVersion=${KUBE_VERSION}`,
  '-X k8s.io/component-base/version.gitMajor=1',
  `-X k8s.io/component-base/version.gitMinor=${KUBE_VERSION.split('.')[1]}`,
  `-X k8s.io/client-go/pkg/version.gitVersion=${KUBE_VERSION}`,
].join(' ');

/**
 * k8s.io/kubernetes replaces its staging modules (k8s.io/api, ...) with local paths, so it cannot
 * be `go install`ed; the wrapper requires it and replaces each staging module with v0.34.x.
 * The kube and node servers ask for their programs in the same tick on a fresh machine: one
 * `go build` of all six (goBuildWrapper), so the node's do not wait for the control plane's.
 */
export const KUBERNETES: GoWrapper = {
  dir: path.join(WRAPPERS_DIR, 'kubernetes'),
  programs: [...CONTROL_PLANE, KUBELET, KUBE_PROXY],
  ldflags: KUBE_LDFLAGS,
};

/**
 * Cluster DNS for the real node's pods: CoreDNS's own main package, with only the plugins the
 * node's Corefile uses (go/coredns/main.go), since the release's imports every plugin.
 */
export const COREDNS: GoProgram = {
  binary: 'coredns',
  module: 'pelita.local/coredns',
  version: 'v1.14.7',
};

export const COREDNS_WRAPPER: GoWrapper = {
  dir: path.join(WRAPPERS_DIR, 'coredns'),
  programs: [COREDNS],
  ldflags: '',
};

/**
 * NetworkPolicy enforcement on the real node: kube-router's policy controller alone (iptables and
 * ipset). The go module proxy serves v2.1.0 only; the wrapper's go.mod raises the dependencies
 * that carry reported security flaws (the testenv README lists them and what remains).
 */
export const KUBE_ROUTER: GoProgram = {
  binary: 'kube-router',
  module: 'github.com/cloudnativelabs/kube-router/v2/cmd/kube-router',
  version: 'v2.1.0',
};

export const KUBE_ROUTER_WRAPPER: GoWrapper = {
  dir: path.join(WRAPPERS_DIR, 'kube-router'),
  programs: [KUBE_ROUTER],
  // As its Makefile sets it, else it reports an empty version.
  ldflags: `-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=${KUBE_ROUTER.version}`,
};

export const ETCD: GoProgram = {
  binary: 'etcd',
  module: 'go.etcd.io/etcd/server/v3',
  version: 'v3.6.16',
};

/** Debian's etcd (3.4) is too old for Kubernetes 1.31+; etcd's go.mod has replaces too. */
export const ETCD_WRAPPER: GoWrapper = {
  dir: path.join(WRAPPERS_DIR, 'etcd'),
  programs: [ETCD],
  ldflags: '',
};

/** The CRI client: the node's stop() removes pods through it (their network too); and for debugging. */
export const CRICTL: GoProgram = {
  binary: 'crictl',
  module: 'sigs.k8s.io/cri-tools/cmd/crictl',
  version: 'v1.34.0',
};

/** Fake nodes: marks pods Running and Ready without a container engine. */
export const KWOK: GoProgram = {
  binary: 'kwok',
  module: 'sigs.k8s.io/kwok/cmd/kwok',
  version: 'v0.8.0',
};

const HELM_VERSION = 'v3.21.4';
/** Kubernetes minor of helm's own client-go: the default `--kube-version` of its release builds. */
const HELM_KUBE_MINOR = '36';

/** Set as helm's Makefile does, else `helm version` says v3.21 and templates see Kubernetes 1.20. */
export const HELM: GoProgram = {
  binary: 'helm',
  module: 'helm.sh/helm/v3/cmd/helm',
  version: HELM_VERSION,
  ldflags: [
    `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
    ...['chartutil', 'lint/rules'].flatMap((pkg) => [
      `-X helm.sh/helm/v3/pkg/${pkg}.k8sVersionMajor=1`,
      `-X helm.sh/helm/v3/pkg/${pkg}.k8sVersionMinor=${HELM_KUBE_MINOR}`,
    ]),
  ].join(' '),
};

const goPrograms: readonly GoProgram[] = [...CONTROL_PLANE, ETCD, KWOK, HELM];

export const areKubeBinariesCurrent = (settings: Settings) =>
  goPrograms.every((program) => isGoBinaryCurrent(settings, program));
