// Schemathesis, the OpenAPI fuzzer the services' integration tests run against `/api-docs.json`.
// Not a server: a command-line tool from PyPI in its own virtualenv. It fits the same contract
// (installed? install, env), and starting or stopping it does nothing.
import fs from 'node:fs';
import path from 'node:path';
import { findExecutable, run, runChecked } from '../proc';
import { type Server } from '../server';
import { type Settings } from '../settings';

const VERSION = '4.32.5';

function venvDir(settings: Settings): string {
  return path.join(settings.cacheDir, `schemathesis-${VERSION}`);
}

function binary(settings: Settings): string {
  return path.join(venvDir(settings), 'bin', 'st');
}

export const schemathesis: Server = {
  name: 'schemathesis',
  startTimeoutMs: 10_000,

  isInstalled: (settings) => fs.existsSync(binary(settings)),

  async install(ctx) {
    const python = findExecutable('python3');
    if (python === undefined) throw new Error('python3 not found on PATH');
    const dir = venvDir(ctx);
    // A half-made virtualenv from an interrupted install would pass for installed otherwise.
    fs.rmSync(dir, { recursive: true, force: true });
    await runChecked(python, ['-m', 'venv', dir], { timeoutMs: 120_000 });
    await runChecked(
      path.join(dir, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${VERSION}`],
      { timeoutMs: 15 * 60_000 },
    );
  },

  start: () => Promise.resolve(),

  isReady: async (settings) => (await run(binary(settings), ['--version'])).code === 0,

  env: (settings) => ({ SCHEMATHESIS_BIN: binary(settings) }),

  stop: () => Promise.resolve(),
};
