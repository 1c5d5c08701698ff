// The unprivileged account servers run as when we are root: OpenSearch, initdb and postgres
// refuse to run as root, and the others have no reason to.
import { type Account, run, runChecked } from './proc';

async function lookup(name: string): Promise<Account | undefined> {
  const { code, stdout } = await run('getent', ['passwd', name]);
  if (code !== 0) return undefined;
  const [, , uid, gid] = stdout.trim().split(':');
  return { name, uid: Number(uid), gid: Number(gid) };
}

export async function ensureAccount(name: string): Promise<Account> {
  const existing = await lookup(name);
  if (existing) return existing;
  // A system account with no login and no home: it only owns server data under the state dir.
  await runChecked('useradd', [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    '/nonexistent',
    '--shell',
    '/usr/sbin/nologin',
    name,
  ]);
  const created = await lookup(name);
  if (!created) throw new Error(`useradd ${name} succeeded but the account cannot be found`);
  return created;
}
