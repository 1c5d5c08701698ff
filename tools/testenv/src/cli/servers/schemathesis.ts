// Schemathesis, the OpenAPI fuzzer the services' integration tests run against `/api-docs.json`.
// Not a server: a command-line tool from PyPI in its own virtualenv. It fits the same contract
// (installed? install, env), and starting or stopping it does nothing.
import { run } from '../proc';
import { type Server } from '../server';
import { installVenv, isVenvInstalled, type PythonTool, venvBin } from '../venv';

const SCHEMATHESIS: PythonTool = { distribution: 'schemathesis', version: '4.32.5' };

export const schemathesis: Server = {
  name: 'schemathesis',
  startTimeoutMs: 10_000,

  isInstalled: (settings) => isVenvInstalled(settings, SCHEMATHESIS),

  install: (ctx) => installVenv(ctx, SCHEMATHESIS),

  start: () => Promise.resolve(),

  isReady: async (settings) =>
    (await run(venvBin(settings, SCHEMATHESIS, 'st'), ['--version'])).code === 0,

  env: (settings) => ({ SCHEMATHESIS_BIN: venvBin(settings, SCHEMATHESIS, 'st') }),

  stop: () => Promise.resolve(),
};
