// What the control plane's processes share: ports, the files under <dir>/kube (PKI, token file,
// kubeconfig), the kube-apiserver flags (one builder for the testenv server and the tests' own
// apiservers), and a small HTTPS client for probes.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { runChecked } from './proc';
import { type Context, makeOwnedDir, writeOwnedFile } from './server';
import { type Settings } from './settings';

export const ETCD_PORT = 52379;
export const ETCD_PEER_PORT = 52380;
export const APISERVER_PORT = 56443;
export const CONTROLLER_MANAGER_PORT = 50257;
export const SCHEDULER_PORT = 50259;
export const ETCD_URL = `http://127.0.0.1:${ETCD_PORT}`;
export const SHARED_ETCD_PREFIX = '/registry';
const SERVICE_CIDR = '10.96.0.0/16';

/** Static bearer token of `admin` in `system:masters` (like the other servers' fixed passwords). */
export const ADMIN_TOKEN = 'pelita-testenv-admin-token';

export function kubeFiles(settings: Pick<Settings, 'dir'>) {
  const dir = path.join(settings.dir, 'kube');
  const pki = path.join(dir, 'pki');
  return {
    dir,
    pki,
    caCert: path.join(pki, 'ca.crt'),
    servingCert: path.join(pki, 'apiserver.crt'),
    servingKey: path.join(pki, 'apiserver.key'),
    serviceAccountKey: path.join(pki, 'sa.key'),
    serviceAccountPub: path.join(pki, 'sa.pub'),
    tokenFile: path.join(pki, 'tokens.csv'),
    kubeconfig: path.join(dir, 'admin.kubeconfig'),
  };
}

export type KubeFiles = ReturnType<typeof kubeFiles>;

/**
 * A CA and a serving certificate it signs (clients verify, no insecure-skip-tls-verify), the
 * service-account signing key pair and the token file. Made once, in a scratch dir renamed when
 * complete; the tests' own apiservers use the same files, so the admin token works on them too.
 */
export async function ensurePki(ctx: Context, files: KubeFiles): Promise<void> {
  if (fs.existsSync(files.pki)) return;
  const scratch = `${files.pki}.init`;
  fs.rmSync(scratch, { recursive: true, force: true });
  makeOwnedDir(ctx, scratch);
  const openssl = (...args: string[]) =>
    runChecked('openssl', args, { cwd: scratch, account: ctx.account });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const days = ['-days', '3650'];
  const caCert = ['-subj', '/CN=pelita-testenv-ca', '-keyout', 'ca.key', '-out', 'ca.crt'];
  await openssl('req', '-x509', ...newKey, ...days, ...caCert);
  const csr = ['-subj', '/CN=kube-apiserver', '-keyout', 'apiserver.key', '-out', 'apiserver.csr'];
  await openssl('req', '-new', ...newKey, ...csr);
  const names = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'localhost'];
  const sans = ['IP:127.0.0.1', 'IP:10.96.0.1', ...names.map((name) => `DNS:${name}`)];
  writeOwnedFile(ctx, path.join(scratch, 'apiserver.ext'), `subjectAltName=${sans.join(',')}\n`);
  const serial = `0x${randomBytes(8).toString('hex')}`;
  const ca = ['-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', serial];
  const sign = ['-extfile', 'apiserver.ext', '-in', 'apiserver.csr', '-out', 'apiserver.crt'];
  await openssl('x509', '-req', ...ca, ...days, ...sign);
  for (const file of ['apiserver.csr', 'apiserver.ext']) fs.rmSync(path.join(scratch, file));
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const write = (file: string, content: string, mode?: number) =>
    writeOwnedFile(ctx, path.join(scratch, file), content, mode);
  write('sa.key', privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), 0o600);
  write('sa.pub', publicKey.export({ format: 'pem', type: 'spki' }).toString());
  write('tokens.csv', `${ADMIN_TOKEN},admin,admin,"system:masters"\n`, 0o600);
  fs.renameSync(scratch, files.pki);
}

/** An admin kubeconfig (static token, the CA inline) for the apiserver at `url`. */
export function kubeconfigYaml(url: string, caCert: string): string {
  const ca = Buffer.from(caCert).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: pelita-testenv',
    `    cluster: { server: '${url}', certificate-authority-data: '${ca}' }`,
    'users:',
    '  - name: admin',
    `    user: { token: '${ADMIN_TOKEN}' }`,
    'contexts:',
    '  - name: pelita-testenv',
    '    context: { cluster: pelita-testenv, user: admin, namespace: default }',
    'current-context: pelita-testenv',
    '',
  ].join('\n');
}

export interface ApiserverOptions {
  files: KubeFiles;
  port: number;
  etcdUrl: string;
  /** Where in etcd this apiserver keeps its objects: another prefix is another cluster. */
  etcdPrefix: string;
}

export function apiserverArgs({ files, port, etcdUrl, etcdPrefix }: ApiserverOptions): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--etcd-prefix=${etcdPrefix}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    // The `kubernetes` Service's endpoints may not be a loopback address, and no pod would use them.
    '--endpoint-reconciler-type=none',
    `--secure-port=${port}`,
    `--tls-cert-file=${files.servingCert}`,
    `--tls-private-key-file=${files.servingKey}`,
    `--client-ca-file=${files.caCert}`,
    `--token-auth-file=${files.tokenFile}`,
    // RBAC only: no kubelets, so no Node authorizer; system:masters bypasses RBAC.
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${files.serviceAccountPub}`,
    `--service-account-signing-key-file=${files.serviceAccountKey}`,
    `--service-cluster-ip-range=${SERVICE_CIDR}`,
    '--allow-privileged=true',
    '--profiling=false',
  ];
}

export interface KubeResponse {
  status: number;
  body: string;
}

/** One request with the admin token, verifying the serving certificate against our CA. */
export function kubeRequest(
  url: string,
  caCert: string,
  options: { method?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<KubeResponse> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: options.method ?? 'GET',
        ca: caCert,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        timeout: options.timeoutMs ?? 2_000,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`${url}: timed out`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** `/readyz` answers `ok` (all post-start hooks done: RBAC bootstrap roles exist). */
export async function apiserverReady(url: string, caCert: string): Promise<boolean> {
  try {
    const { status, body } = await kubeRequest(`${url}/readyz`, caCert);
    return status === 200 && body.trim() === 'ok';
  } catch {
    return false;
  }
}
