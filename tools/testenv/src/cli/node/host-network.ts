// What the real node changes on the host, and puts back: the pods' bridge, ip_forward (kube-proxy
// forwards Service traffic between pods), a firewall table that keeps forwarded traffic on that
// bridge, and the kernel settings the kubelet sets at start.
import fs from 'node:fs';
import { runChecked } from '../proc';
import { BRIDGE, NODE_IP, type NodePaths } from './node-config';
import { restoreSysctls, saveSysctls, writeSysctl } from './sysctls';

/** Set by us (ip_forward) or by the kubelet at start (the other three). */
const TOUCHED_SYSCTLS = [
  'net/ipv4/ip_forward',
  'kernel/panic',
  'kernel/panic_on_oops',
  'vm/overcommit_memory',
];
const FIREWALL_TABLE = 'pelita-node';

/**
 * Forwarding is on only so that kube-proxy can pass Service traffic from one pod to another:
 * whatever would be forwarded in from or out to any other interface is dropped, so turning
 * ip_forward on routes nothing between the host's real interfaces and nothing off the machine.
 */
const firewallRules = `table inet ${FIREWALL_TABLE} {
  chain forward {
    type filter hook forward priority filter - 10; policy accept;
    iifname != "${BRIDGE}" drop
    oifname != "${BRIDGE}" drop
  }
}
`;

function bridgeExists(): boolean {
  return fs.existsSync(`/sys/class/net/${BRIDGE}`);
}

export async function setUpHostNetwork(paths: NodePaths): Promise<void> {
  saveSysctls(paths.savedSysctls, TOUCHED_SYSCTLS);
  await runChecked('nft', ['delete', 'table', 'inet', FIREWALL_TABLE]).catch(() => undefined);
  await runChecked('nft', ['-f', '-'], { input: firewallRules });
  if (!bridgeExists()) {
    await runChecked('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
    await runChecked('ip', ['addr', 'add', `${NODE_IP}/24`, 'dev', BRIDGE]);
  }
  await runChecked('ip', ['link', 'set', BRIDGE, 'up']);
  // After the drop rules are in place, never before.
  writeSysctl('net/ipv4/ip_forward', '1');
}

/** Puts the host back as it was; each step runs even when an earlier one failed. */
export async function tearDownHostNetwork(paths: NodePaths): Promise<void> {
  // ip_forward first (from the saved values), the firewall after: nothing forwards unguarded.
  restoreSysctls(paths.savedSysctls);
  await runChecked('nft', ['delete', 'table', 'inet', FIREWALL_TABLE]).catch(() => undefined);
  // kube-proxy leaves its own table behind when stopped; remove it as `kube-proxy --cleanup` does.
  await runChecked('nft', ['delete', 'table', 'ip', 'kube-proxy']).catch(() => undefined);
  await runChecked('nft', ['delete', 'table', 'ip6', 'kube-proxy']).catch(() => undefined);
  if (bridgeExists()) await runChecked('ip', ['link', 'delete', BRIDGE]);
}
