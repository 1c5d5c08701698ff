// The real node's NetworkPolicy agent, kube-router's policy controller: its arguments and how to
// remove what it installed (iptables chains in the filter table, ipsets), as pure functions a unit
// test reads without a node.
//
// Why not sigs.k8s.io/kube-network-policies: every version sends packets to user space with an
// nftables `queue` rule (`ip daddr @podips-v4 queue flags bypass to 100`, in its table
// `inet kube-network-policies`), and this kernel has CONFIG_NFT_QUEUE unset: nft refuses the rule
// ("No such file or directory"). kube-router needs iptables (here nf_tables through
// CONFIG_NFT_COMPAT), ipset and the physdev, conntrack, comment, mark, addrtype and NFLOG matches
// and targets, all built in.
import { SERVICE_CIDR } from '../../lib/kube-apiserver-config';
import { NODE_NAME } from './node-config';

// Below 32768, outside Linux's range of ephemeral ports: an outgoing connection held the port this
// had before (50244) when the agent started (CI: bind: address already in use).
export const AGENT_HEALTH_PORT = 20244;

/**
 * Bridged traffic (pod to pod on `pelita0`) reaches iptables' FORWARD chain only with this on;
 * kube-router's routing controller sets it, and that controller does not run here.
 */
export const AGENT_SYSCTLS = ['net/bridge/bridge-nf-call-iptables'] as const;

/** The policy controller only: no routing (BGP), no service proxy (kube-proxy is the node's). */
export function agentArgs(kubeconfig: string): string[] {
  return [
    '--run-firewall=true',
    '--run-router=false',
    '--run-service-proxy=false',
    '--enable-cni=false',
    '--enable-ipv6=false',
    `--kubeconfig=${kubeconfig}`,
    `--hostname-override=${NODE_NAME}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    // On every address (kube-router has no flag for one); it serves /healthz only.
    `--health-port=${AGENT_HEALTH_PORT}`,
    '--metrics-port=0',
  ];
}

/** kube-router's policy controller names (pkg/controllers/netpol): its chains and its ipsets. */
const OWNED_CHAIN = /^(KUBE-ROUTER-|KUBE-POD-FW-|KUBE-NWPLCY-)/;
const OWNED_IPSET = /^(KUBE-SRC-|KUBE-DST-)/;

export const isAgentIpset = (name: string) => OWNED_IPSET.test(name);

/** The chain a rule jumps or goes to; quoted comments are left out (they may say anything). */
function ruleTarget(rule: string): string | undefined {
  const unquoted = rule.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return /\s-[jg]\s+(\S+)/.exec(unquoted)?.[1];
}

/**
 * An `iptables-restore --noflush` script that takes out of `iptables-save -t filter` output what
 * kube-router added: the rules of other chains that jump to its chains, then its chains (all
 * flushed before any is deleted: they jump to each other). Other rules stay as they are. Null when
 * there is nothing of it.
 */
export function agentCleanupScript(filterTable: string): string | null {
  const lines = filterTable.split('\n');
  const chains = lines
    .filter((line) => line.startsWith(':'))
    .map((line) => line.slice(1).split(' ')[0] ?? '')
    .filter((chain) => OWNED_CHAIN.test(chain));
  const jumps = lines.filter((line) => {
    const chain = /^-A (\S+) /.exec(line)?.[1];
    const target = ruleTarget(line);
    return chain !== undefined && !OWNED_CHAIN.test(chain) && !!target && OWNED_CHAIN.test(target);
  });
  if (chains.length === 0 && jumps.length === 0) return null;
  return [
    '*filter',
    ...jumps.map((rule) => rule.replace(/^-A /, '-D ')),
    ...chains.map((chain) => `-F ${chain}`),
    ...chains.map((chain) => `-X ${chain}`),
    'COMMIT',
    '',
  ].join('\n');
}

/**
 * Whether `iptables-save -t filter` output is the table iptables-nft creates on first use and
 * nothing more: the built-in chains accepting, no rule, no other chain. Such a table filters
 * nothing; removing it leaves the host as it was before the agent's first start.
 */
export function isBareFilterTable(filterTable: string): boolean {
  const lines = filterTable.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  const chains = lines.filter((line) => line.startsWith(':'));
  const builtIn = /^:(INPUT|FORWARD|OUTPUT) ACCEPT /;
  return (
    chains.every((line) => builtIn.test(line)) && !lines.some((line) => line.startsWith('-A '))
  );
}
