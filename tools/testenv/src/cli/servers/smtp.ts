// A real SMTP receiver: aiosmtpd (PyPI) storing every message it accepts in a Maildir, which
// tests read (SMTP_MAILDIR) to find e-mails such as password-reset links.
import net from 'node:net';
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { spawnDaemon, stopDaemon } from '../proc';
import { makeOwnedDir, type Server, serverHome, serverPaths } from '../server';
import { installVenv, isVenvInstalled, type PythonTool, venvBin } from '../venv';

const NAME = 'smtp';
const PORT = 52525;
const AIOSMTPD: PythonTool = { distribution: 'aiosmtpd', version: '1.4.6' };

function maildir(settings: Settings): string {
  return path.join(serverPaths(settings, NAME).dir, 'maildir');
}

/** Connects and expects the `220` greeting every SMTP server sends first. */
function smtpGreets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.on('error', () => done(false));
    socket.once('data', (chunk) => done(chunk.toString('latin1').startsWith('220')));
  });
}

export const smtp: Server = {
  name: NAME,
  startTimeoutMs: 30_000,

  isInstalled: (settings) => isVenvInstalled(settings, AIOSMTPD),

  install: (ctx) => installVenv(ctx, AIOSMTPD),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    makeOwnedDir(ctx, dir);
    spawnDaemon({
      command: venvBin(ctx, AIOSMTPD, 'python'),
      args: [
        ...['-m', 'aiosmtpd', '--nosetuid', '--listen', `127.0.0.1:${PORT}`],
        ...['--class', 'aiosmtpd.handlers.Mailbox', maildir(ctx)],
      ],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: undefined,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  isReady: () => smtpGreets(PORT),

  env: (settings) => ({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(PORT),
    SMTP_MAILDIR: maildir(settings),
  }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
