/**
 * A kube-apiserver of the test's own, on the shared etcd under its own prefix (so its own
 * cluster): a test may stop and restart it without disturbing the shared control plane. Same
 * flags, certificates and admin token as the testenv's apiserver. Controllers, scheduler and fake
 * nodes watch the shared apiserver only, so here pods stay Pending.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { apiserverArgs, apiserverReady, kubeconfigYaml, kubeFiles } from './kube-apiserver-config';
import { requireEnv } from './require-env';
import { currentSettings } from './settings';
import { stopChild } from './stop-child';
import { waitFor } from './wait-for';

export interface KubeApiserverProcess {
  url: string;
  /** An admin kubeconfig for this apiserver (`KubeConfig.loadFromFile`, `kubectl --kubeconfig`). */
  kubeconfigPath: string;
  etcdPrefix: string;
  /** Kills it (SIGKILL, as a crash would) and removes its kubeconfig and, if random, its etcd data. */
  stop(): Promise<void>;
  /** Kills it and starts it again on the same port and prefix; resolves once it is ready. */
  restart(): Promise<void>;
}

export async function startKubeApiserver(
  options: { etcdPrefix?: string; port?: number } = {},
): Promise<KubeApiserverProcess> {
  const { KUBE_APISERVER_BIN, ETCD_URL } = requireEnv('KUBE_APISERVER_BIN', 'ETCD_URL');
  const files = kubeFiles(currentSettings());
  const caCert = fs.readFileSync(files.caCert, 'utf8');
  const port = options.port ?? (await freePort());
  const etcdPrefix = options.etcdPrefix ?? `/pelita-test-${randomUUID()}`;
  const url = `https://127.0.0.1:${port}`;
  const args = apiserverArgs({ files, port, etcdUrl: ETCD_URL, etcdPrefix });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pelita-kube-apiserver-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfigPath, kubeconfigYaml(url, caCert), { mode: 0o600 });

  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(KUBE_APISERVER_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on(
      'data',
      (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)),
    );
    const state = await waitFor(
      async () =>
        child.exitCode === null ? (await apiserverReady(url, caCert)) && 'ready' : 'exited',
      { timeoutMs: 90_000, intervalMs: 250, what: `kube-apiserver on ${url}` },
    ).catch(async (err: unknown) => {
      await stopChild(child);
      throw err;
    });
    if (state === 'exited') {
      throw new Error(`kube-apiserver on ${url} exited (${child.exitCode}): ${stderr}`);
    }
    return child;
  };

  let child = await launch();
  return {
    url,
    kubeconfigPath,
    etcdPrefix,
    async stop() {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
      if (options.etcdPrefix === undefined) await deletePrefix(ETCD_URL, etcdPrefix);
    },
    async restart() {
      await stopChild(child);
      child = await launch();
    },
  };
}

/** Deletes every key under `prefix` through etcd's JSON gateway (keys and range are base64). */
async function deletePrefix(etcdUrl: string, prefix: string): Promise<void> {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  // The range [prefix/, prefix0) holds exactly the keys below prefix/ ('0' follows '/').
  const body = JSON.stringify({ key: b64(`${prefix}/`), range_end: b64(`${prefix}0`) });
  const response = await fetch(`${etcdUrl}/v3/kv/deleterange`, { method: 'POST', body });
  if (!response.ok) throw new Error(`etcd deleterange answered ${response.status}`);
}
