// What the control plane's processes share: ports, and the PKI under <dir>/kube (made once).
// What the tests' own apiservers share with it (files, flags, probe) is in lib/kube-apiserver-config.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, type KubeFiles } from '../lib/kube-apiserver-config';
import { runChecked } from './proc';
import { type Context, makeOwnedDir, writeOwnedFile } from './server';

const ETCD_PORT = 52379;
export const ETCD_PEER_PORT = 52380;
export const APISERVER_PORT = 56443;
export const CONTROLLER_MANAGER_PORT = 50257;
export const SCHEDULER_PORT = 50259;
export const ETCD_URL = `http://127.0.0.1:${ETCD_PORT}`;
export const SHARED_ETCD_PREFIX = '/registry';

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
