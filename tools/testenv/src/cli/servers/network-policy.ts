// NetworkPolicies enforced on the real node: kube-router's policy controller beside kube-proxy
// (node-config.ts, nftables mode) and the node's own table `inet pelita-node`. It writes iptables
// rules (the `filter` table of iptables-nft, its own chains) and ipsets for the pods of this node
// that policies select; node/network-policy-agent.ts says why this agent and not another. As root,
// after the node is ready (it reads the Node object and the pods' IPs). stop() removes its chains
// and ipsets and puts back the sysctl it needs.
import fs from 'node:fs';
import path from 'node:path';
import { kubeFiles } from '../../lib/kube-apiserver-config';
import { type Settings } from '../../lib/settings';
import { waitFor } from '../../lib/wait-for';
import { goBinaryPath, goBuildWrapper, isGoBinaryCurrent } from '../go-binary';
import { KUBE_ROUTER, KUBE_ROUTER_WRAPPER } from '../kube-binaries';
import {
  AGENT_HEALTH_PORT,
  AGENT_SYSCTLS,
  agentArgs,
  agentCleanupScript,
  isAgentIpset,
  isBareFilterTable,
} from '../node/network-policy-agent';
import { restoreSysctls, saveSysctls, writeSysctl } from '../node/sysctls';
import { httpOk } from '../probes';
import { findExecutable, run, runChecked, spawnDaemon, stopDaemon } from '../proc';
import { type Server, serverPaths } from '../server';
import { node } from './node';

const NAME = 'network-policy';
/** Debian packages: kube-router runs iptables-save/-restore and ipset. */
const PACKAGES = ['iptables', 'ipset'];
const EXECUTABLES = ['iptables', 'iptables-save', 'iptables-restore', 'ipset'];

const savedSysctls = (settings: Settings) =>
  path.join(serverPaths(settings, NAME).dir, 'saved-sysctls.json');

/** Its FORWARD chain exists once it has synced the policies a first time. */
async function chainsInstalled(): Promise<boolean> {
  return (await run('iptables', ['-t', 'filter', '-S', 'KUBE-ROUTER-FORWARD'])).code === 0;
}

const saveFilterTable = async () => (await runChecked('iptables-save', ['-t', 'filter'])).stdout;

/**
 * Takes out its chains (and the jumps to them), the filter table when nothing else is left in it,
 * then its ipsets, which no rule uses any more.
 */
async function removeAgentRules(): Promise<void> {
  if (EXECUTABLES.some((name) => findExecutable(name) === undefined)) return;
  const script = agentCleanupScript(await saveFilterTable());
  if (script !== null) await runChecked('iptables-restore', ['--noflush'], { input: script });
  // iptables-save prints a bare table even when there is none: ask nft whether it exists.
  const exists = (await run('nft', ['list', 'table', 'ip', 'filter'])).code === 0;
  if (exists && isBareFilterTable(await saveFilterTable())) {
    await runChecked('nft', ['delete', 'table', 'ip', 'filter']);
  }
  const sets = (await runChecked('ipset', ['list', '-n'])).stdout.split('\n').filter(isAgentIpset);
  for (const set of sets) await runChecked('ipset', ['destroy', set]);
}

export const networkPolicy: Server = {
  name: NAME,
  e2eOnly: true,
  startTimeoutMs: 60_000,

  isInstalled: (settings) =>
    isGoBinaryCurrent(settings, KUBE_ROUTER) &&
    EXECUTABLES.every((name) => findExecutable(name) !== undefined),

  async install(ctx) {
    if (process.getuid?.() !== 0) throw new Error('the NetworkPolicy agent needs root (iptables)');
    await Promise.all([
      ctx.apt(PACKAGES),
      isGoBinaryCurrent(ctx, KUBE_ROUTER) ? undefined : goBuildWrapper(ctx, KUBE_ROUTER_WRAPPER),
    ]);
  },

  async start(ctx) {
    // The node starts concurrently; on a fresh machine it builds for minutes first.
    ctx.log(NAME, 'waiting for the real node');
    await waitFor(() => node.isReady(ctx), {
      what: 'the real node (node server)',
      timeoutMs: 60 * 60_000,
      intervalMs: 1_000,
    });
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    fs.mkdirSync(dir, { recursive: true });
    // Rules of a previous run that ended without stop() would hold pod IPs of pods now gone.
    await removeAgentRules();
    saveSysctls(savedSysctls(ctx), AGENT_SYSCTLS);
    for (const name of AGENT_SYSCTLS) writeSysctl(name, '1');
    spawnDaemon({
      command: goBinaryPath(ctx, KUBE_ROUTER),
      args: agentArgs(kubeFiles(ctx).kubeconfig),
      cwd: dir,
      account: undefined,
      pidFile,
      logFile,
    });
  },

  async isReady() {
    const healthy = await httpOk(`http://127.0.0.1:${AGENT_HEALTH_PORT}/healthz`);
    return healthy && (await chainsInstalled());
  },

  env: () => ({ NETWORK_POLICY_AGENT: `kube-router@${KUBE_ROUTER.version}` }),

  async stop(settings) {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
    await removeAgentRules();
    restoreSysctls(savedSysctls(settings));
  },
};
