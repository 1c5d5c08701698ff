// MinIO (S3), built from source with `go install` at a pinned pseudo-version.
import path from 'node:path';
import { type Settings } from '../../lib/settings';
import { type GoProgram, goBinaryPath, goInstall, isGoBinaryCurrent } from '../go-binary';
import { httpOk } from '../probes';
import { spawnDaemon, stopDaemon } from '../proc';
import { type Server, makeOwnedDir, serverHome, serverPaths } from '../server';

const NAME = 'minio';
const PORT = 59000;
const ACCESS_KEY = 'pelita-access';
const SECRET_KEY = 'pelita-secret-key';
const REGION = 'us-east-1';

const MINIO: GoProgram = {
  binary: 'minio',
  module: 'github.com/minio/minio',
  version: 'v0.0.0-20260212201848-7aac2a2c5b7c',
};

export const minio: Server = {
  name: NAME,
  startTimeoutMs: 60_000,

  isInstalled: (settings) => isGoBinaryCurrent(settings, MINIO),

  install: (ctx) => goInstall(ctx, MINIO),

  start(ctx) {
    const { dir, pidFile, logFile } = serverPaths(ctx, NAME);
    const dataDir = path.join(dir, 'data');
    makeOwnedDir(ctx, dataDir);
    spawnDaemon({
      command: goBinaryPath(ctx, MINIO),
      args: ['server', '--quiet', '--address', `127.0.0.1:${PORT}`, dataDir],
      cwd: dir,
      env: {
        ...serverHome(ctx, dir),
        MINIO_ROOT_USER: ACCESS_KEY,
        MINIO_ROOT_PASSWORD: SECRET_KEY,
        MINIO_SITE_REGION: REGION,
        // The web console would take another port and tests do not use it.
        MINIO_BROWSER: 'off',
      },
      account: ctx.account,
      pidFile,
      logFile,
    });
    return Promise.resolve();
  },

  isReady: () => httpOk(`http://127.0.0.1:${PORT}/minio/health/ready`),

  env: () => ({
    S3_ENDPOINT: `http://127.0.0.1:${PORT}`,
    S3_ACCESS_KEY: ACCESS_KEY,
    S3_SECRET_KEY: SECRET_KEY,
    S3_REGION: REGION,
  }),

  stop: async (settings: Settings) => {
    await stopDaemon(serverPaths(settings, NAME).pidFile, 'SIGTERM');
  },
};
