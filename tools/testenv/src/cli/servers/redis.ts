// Redis from Debian's packages; every setting on the command line, so no config file.
import { type Settings } from '../../lib/settings';
import { redisPing } from '../probes';
import { findExecutable, spawnDaemon, stopDaemon } from '../proc';
import { type Server, serverHome, serverPaths } from '../server';

const NAME = 'redis';
const PORT = 56379;

function requireBin(): string {
  const file = findExecutable('redis-server');
  if (file === undefined) throw new Error('redis-server not found (Debian package redis-server)');
  return file;
}

export const redis: Server = {
  name: NAME,
  startTimeoutMs: 30_000,

  isInstalled: () => findExecutable('redis-server') !== undefined,

  install: (ctx) => ctx.apt(['redis-server']),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    spawnDaemon({
      command: requireBin(),
      args: [
        ...['--bind', '127.0.0.1', '--port', String(PORT), '--dir', dir, '--daemonize', 'no'],
        // No persistence: tests own their data, and snapshots would only cost time.
        ...['--save', '', '--appendonly', 'no', '--logfile', ''],
      ],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: ctx.account,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  isReady: () => redisPing(PORT),

  env: () => ({ REDIS_URL: `redis://127.0.0.1:${PORT}` }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
