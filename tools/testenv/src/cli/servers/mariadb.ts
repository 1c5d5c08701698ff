// MariaDB from Debian's packages, run as `mariadbd` with its own datadir, socket and port,
// ignoring the system-wide config (--no-defaults) and Debian's service instance.
import fs from 'node:fs';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { clientOk } from '../probes';
import { findExecutable, runChecked, spawnDaemon, stopDaemon } from '../proc';
import { type Context, type Server, serverHome, serverPaths, writeOwnedFile } from '../server';

const NAME = 'mariadb';
const PORT = 53306;
const USER = 'pelita';
const PASSWORD = 'pelita';
const DATABASE = 'pelita';

// Run on every start by mariadbd itself (--init-file): idempotent, and no root login is needed.
// The localhost and 127.0.0.1 accounts exist because a more specific host wins over '%'.
// ALTER USER resets the authentication: mariadb-install-db creates a unix_socket-only account
// for the OS user it runs as, which is `pelita` too.
const INIT_SQL = ['%', 'localhost', '127.0.0.1']
  .flatMap((host) => [
    `CREATE USER IF NOT EXISTS '${USER}'@'${host}';`,
    `ALTER USER '${USER}'@'${host}' IDENTIFIED BY '${PASSWORD}';`,
    `GRANT ALL PRIVILEGES ON *.* TO '${USER}'@'${host}' WITH GRANT OPTION;`,
  ])
  .concat(`CREATE DATABASE IF NOT EXISTS ${DATABASE};`)
  .join('\n');

// A real login and query over TCP, as the tests will do.
const CLIENT_ARGS = [
  ...['--no-defaults', '--protocol=TCP', '-h127.0.0.1', `-P${PORT}`, `-u${USER}`, `-p${PASSWORD}`],
  ...['--connect-timeout=2', '-N', '-B', '-e', 'SELECT 1', DATABASE],
];

function bin(name: string): string | undefined {
  return findExecutable(name);
}

function requireBin(name: string): string {
  const file = bin(name);
  if (file === undefined) throw new Error(`${name} not found (Debian package mariadb-server)`);
  return file;
}

/** mariadb-install-db into a scratch dir, renamed only when complete. */
async function initDataDir(ctx: Context, dir: string, dataDir: string): Promise<void> {
  const scratch = `${dataDir}.init`;
  fs.rmSync(scratch, { recursive: true, force: true });
  await runChecked(
    requireBin('mariadb-install-db'),
    // --skip-test-db also skips the anonymous accounts, which would shadow 'pelita'@'%' locally.
    ['--no-defaults', `--datadir=${scratch}`, '--skip-test-db'],
    { account: ctx.account, cwd: dir, env: serverHome(ctx, dir) },
  );
  fs.renameSync(scratch, dataDir);
}

export const mariadb: Server = {
  name: NAME,
  startTimeoutMs: 60_000,

  isInstalled: () =>
    ['mariadbd', 'mariadb-install-db', 'mariadb'].every((b) => bin(b) !== undefined),

  install: (ctx) => ctx.apt(['mariadb-server', 'mariadb-client']),

  async start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    const dataDir = path.join(dir, 'data');
    if (!fs.existsSync(path.join(dataDir, 'mysql'))) await initDataDir(ctx, dir, dataDir);
    const initFile = path.join(dir, 'init.sql');
    writeOwnedFile(ctx, initFile, `${INIT_SQL}\n`);
    spawnDaemon({
      command: requireBin('mariadbd'),
      args: [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--socket=${path.join(dir, 'mariadb.sock')}`,
        `--pid-file=${path.join(dir, 'mariadbd.pid')}`,
        `--port=${PORT}`,
        '--bind-address=127.0.0.1',
        '--skip-name-resolve',
        `--init-file=${initFile}`,
        '--character-set-server=utf8mb4',
        '--max-connections=200',
        // Test data is disposable: do not flush the redo log on every commit.
        '--innodb-flush-log-at-trx-commit=0',
      ],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: ctx.account,
      pidFile,
      logFile,
    });
  },

  isReady: () => clientOk(requireBin('mariadb'), CLIENT_ARGS, '1'),

  env: () => ({ MARIADB_URL: `mysql://${USER}:${PASSWORD}@127.0.0.1:${PORT}/${DATABASE}` }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
