// PgBouncer from Debian's packages in front of the test PostgreSQL, in transaction mode: the tests
// that run the services' real flows through a pooler (`PGBOUNCER_URL`) use it.
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { clientOk } from '../probes';
import { findExecutable, spawnDaemon, stopDaemon } from '../proc';
import { makeOwnedDir, type Server, serverHome, serverPaths, writeOwnedFile } from '../server';

const NAME = 'pgbouncer';
// Below 32768: outside Linux's range of ephemeral ports, so no outgoing connection takes it.
const PORT = 16432;
// The test PostgreSQL (servers/postgres.ts) and its superuser.
const POSTGRES_PORT = 55432;
const USER = 'pelita';
const PASSWORD = 'pelita';
/**
 * A database entry of its own for the core backend's flows: its schema comes from the entry
 * (`connect_query`), since a pooler in transaction mode cannot keep the startup `options` the
 * core backend sends (ignored below). The tests create the database behind it.
 */
const CORE_ALIAS = 'pelita_pooled_core';
const POOLED_DATABASE = 'pelita_pooled';

function requireBin(): string {
  const file = findExecutable('pgbouncer');
  if (file === undefined) throw new Error('pgbouncer not found (Debian package pgbouncer)');
  return file;
}

function config(dir: string): string {
  const server = `host=127.0.0.1 port=${POSTGRES_PORT}`;
  return [
    '[databases]',
    `${CORE_ALIAS} = ${server} dbname=${POOLED_DATABASE} connect_query='SET search_path = core_backend'`,
    // Any other database name reaches the database of that name.
    `* = ${server}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${PORT}`,
    `unix_socket_dir = ${dir}`,
    'pool_mode = transaction',
    // Clients log in with SCRAM; PgBouncer logs in to PostgreSQL with the same password.
    'auth_type = scram-sha-256',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    `admin_users = ${USER}`,
    // node-postgres sends `options` for a search_path; PgBouncer would refuse the login.
    'ignore_startup_parameters = extra_float_digits,options',
    'max_client_conn = 500',
    'default_pool_size = 20',
    // Closed after a minute unused, as a production pooler would (the tests count connections).
    'server_idle_timeout = 60',
    '',
  ].join('\n');
}

export const pgbouncer: Server = {
  name: NAME,
  startTimeoutMs: 30_000,

  isInstalled: () => findExecutable('pgbouncer') !== undefined,

  install: (ctx) => ctx.apt(['pgbouncer']),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    makeOwnedDir(ctx, dir);
    const iniFile = path.join(dir, 'pgbouncer.ini');
    writeOwnedFile(ctx, iniFile, config(dir));
    writeOwnedFile(ctx, path.join(dir, 'userlist.txt'), `"${USER}" "${PASSWORD}"\n`, 0o600);
    // In the foreground (no -d): the pid file and log are ours, as for every server here.
    spawnDaemon({
      command: requireBin(),
      args: [iniFile],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: ctx.account,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  // A real query through the pooler, which also proves it logs in to PostgreSQL.
  isReady: (settings: Settings) =>
    clientOk(
      findExecutable('psql') ?? 'psql',
      ['-X', '-w', '-tAc', 'SELECT 1', pgbouncer.env(settings).PGBOUNCER_URL!],
      '1',
      { env: { PGCONNECT_TIMEOUT: '2' } },
    ),

  env: () => ({ PGBOUNCER_URL: `postgres://${USER}:${PASSWORD}@127.0.0.1:${PORT}/pelita` }),

  // SIGTERM is PgBouncer's immediate shutdown; SIGINT would wait for every open transaction.
  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
