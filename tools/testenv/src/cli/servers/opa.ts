// Open Policy Agent, built from source with `go install` (pure Go, without the wasm tag).
// Tests also run `opa test` with the same binary, hence OPA_BIN.
import { type Settings } from '../../lib/settings';
import { type GoProgram, goBinaryPath, goInstall, isGoBinaryCurrent } from '../go-binary';
import { httpOk } from '../probes';
import { spawnDaemon, stopDaemon } from '../proc';
import { type Server, serverHome, serverPaths } from '../server';

const NAME = 'opa';
const PORT = 58181;

const OPA: GoProgram = {
  binary: 'opa',
  module: 'github.com/open-policy-agent/opa',
  version: 'v1.22.2',
};

export const opa: Server = {
  name: NAME,
  startTimeoutMs: 30_000,

  isInstalled: (settings) => isGoBinaryCurrent(settings, OPA),

  install: (ctx) => goInstall(ctx, OPA),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    spawnDaemon({
      command: goBinaryPath(ctx, OPA),
      args: [
        'run',
        '--server',
        `--addr=127.0.0.1:${PORT}`,
        '--disable-telemetry',
        '--log-level=error',
      ],
      cwd: dir,
      env: serverHome(ctx, dir),
      account: ctx.account,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  isReady: () => httpOk(`http://127.0.0.1:${PORT}/health`),

  env: (settings) => ({
    OPA_URL: `http://127.0.0.1:${PORT}`,
    OPA_BIN: goBinaryPath(settings, OPA),
  }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
