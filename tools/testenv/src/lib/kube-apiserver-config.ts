// What the testenv's kube-apiserver and the tests' own (startKubeApiserver) share: the files under
// <dir>/kube (PKI, token file, kubeconfig), the kube-apiserver flags, and a small HTTPS client for
// probes. The PKI itself is made by the CLI (cli/kube-control-plane.ts).
import https from 'node:https';
import path from 'node:path';
import { type Settings } from './settings';

export const SERVICE_CIDR = '10.96.0.0/16';

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
    // With the defaults: a namespace's annotations scheduler.alpha.kubernetes.io/node-selector and
    // .../defaultTolerations put every pod created in it on the tainted real node (make e2e),
    // whoever writes the pods (the operator renders neither); other namespaces are untouched.
    '--enable-admission-plugins=PodNodeSelector,PodTolerationRestriction',
    // The real node's kubelet (logs, exec) by its address: its name resolves nowhere.
    '--kubelet-preferred-address-types=InternalIP',
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
