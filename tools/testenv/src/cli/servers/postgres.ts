// PostgreSQL from Debian's packages, run straight from its bin dir (no pg_ctlcluster, no systemd).
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { clientOk } from '../probes';
import { findExecutable, processStartTime, runChecked, spawnDaemon, stopDaemon } from '../proc';
import { type Context, type Server, serverHome, serverPaths, writeOwnedFile } from '../server';

const NAME = 'postgres';
const PORT = 55432;
const USER = 'pelita';
const PASSWORD = 'pelita';
const DATABASE = 'pelita';
const URL = `postgres://${USER}:${PASSWORD}@127.0.0.1:${PORT}/${DATABASE}`;

const SERVER_SETTINGS = [
  'listen_addresses=127.0.0.1',
  // Test data is disposable: trade crash safety for speed.
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  // Parallel test workers each open pools.
  'max_connections=200',
];

/** Debian keeps the server binaries in /usr/lib/postgresql/<major>/bin, off PATH; prefer the newest. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const majors = fs.existsSync(root) ? fs.readdirSync(root) : [];
  const dirs = majors.sort((a, b) => Number(b) - Number(a)).map((v) => path.join(root, v, 'bin'));
  const onPath = findExecutable('initdb');
  if (onPath !== undefined) dirs.push(path.dirname(fs.realpathSync(onPath)));
  return dirs.find((dir) =>
    ['initdb', 'postgres', 'psql'].every((bin) => fs.existsSync(path.join(dir, bin))),
  );
}

function requireBinDir(): string {
  const dir = binDir();
  if (dir === undefined) throw new Error('PostgreSQL binaries (initdb, postgres, psql) not found');
  return dir;
}

/** initdb into a scratch dir, renamed only when complete, so an interrupted init is redone. */
async function initCluster(ctx: Context, dir: string, dataDir: string): Promise<void> {
  const bin = requireBinDir();
  const scratch = `${dataDir}.init`;
  const pwFile = path.join(dir, 'password');
  fs.rmSync(scratch, { recursive: true, force: true });
  writeOwnedFile(ctx, pwFile, `${PASSWORD}\n`, 0o600);
  const options = { account: ctx.account, cwd: dir, env: serverHome(ctx, dir) };
  try {
    // The bootstrap superuser is `pelita`; TCP logins need its password, the socket is trusted.
    const auth = ['--auth-local=trust', '--auth-host=scram-sha-256'];
    const flags = ['-U', USER, `--pwfile=${pwFile}`, '-E', 'UTF8', '--no-locale', '--no-sync'];
    await runChecked(path.join(bin, 'initdb'), ['-D', scratch, ...flags, ...auth], options);
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
  // Single-user mode creates the database without starting a server first.
  await runChecked(path.join(bin, 'postgres'), ['--single', '-F', '-D', scratch, 'postgres'], {
    ...options,
    input: `CREATE DATABASE ${DATABASE};\n`,
  });
  fs.renameSync(scratch, dataDir);
}

/**
 * postgres refuses to start while the pid in a leftover lock file (postmaster.pid, the socket's
 * .lock) exists, and cannot tell a zombie (containers whose pid 1 reaps slowly) from a live
 * postmaster. We only get here when our own pid file says the server is not running.
 */
function removeStaleLock(lock: string): void {
  if (!fs.existsSync(lock)) return;
  const pid = Number(fs.readFileSync(lock, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && processStartTime(pid) === undefined) fs.rmSync(lock);
}

export const postgres: Server = {
  name: NAME,
  startTimeoutMs: 60_000,

  isInstalled: () => binDir() !== undefined,

  install: (ctx) => ctx.apt(['postgresql']),

  async start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    const dataDir = path.join(dir, 'data');
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await initCluster(ctx, dir, dataDir);
    removeStaleLock(path.join(dataDir, 'postmaster.pid'));
    removeStaleLock(path.join(dir, `.s.PGSQL.${PORT}.lock`));
    const settings = SERVER_SETTINGS.flatMap((setting) => ['-c', setting]);
    spawnDaemon({
      command: path.join(requireBinDir(), 'postgres'),
      args: ['-D', dataDir, '-p', String(PORT), '-k', dir, ...settings],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: ctx.account,
      pidFile,
      logFile,
    });
  },

  isReady: () =>
    clientOk(path.join(requireBinDir(), 'psql'), ['-X', '-w', '-tAc', 'SELECT 1', URL], '1', {
      env: { PGCONNECT_TIMEOUT: '2' },
    }),

  env: () => ({ POSTGRES_URL: URL }),

  // SIGINT is PostgreSQL's "fast" shutdown; SIGTERM would wait for every client to disconnect.
  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGINT');
  },
};
