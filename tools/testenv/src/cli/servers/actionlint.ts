// actionlint, the GitHub Actions workflow linter `make lint` and the images test run over
// .github/workflows. Not a server: built with `go install`. It checks `run:` scripts with
// shellcheck only when it finds one, so Debian's shellcheck comes with it (also used directly on
// the repository's shell scripts, hence SHELLCHECK_BIN).
import fs from 'node:fs';
import { type GoProgram, goBinaryPath, goInstall, isGoBinaryCurrent } from '../go-binary';
import { run } from '../proc';
import { type Server } from '../server';

const ACTIONLINT: GoProgram = {
  binary: 'actionlint',
  module: 'github.com/rhysd/actionlint/cmd/actionlint',
  version: 'v1.7.12',
};

const SHELLCHECK = '/usr/bin/shellcheck';

export const actionlint: Server = {
  name: 'actionlint',
  startTimeoutMs: 10_000,

  isInstalled: (settings) => isGoBinaryCurrent(settings, ACTIONLINT) && fs.existsSync(SHELLCHECK),

  install: async (ctx) => {
    await Promise.all([goInstall(ctx, ACTIONLINT), ctx.apt(['shellcheck'])]);
  },

  start: () => Promise.resolve(),

  isReady: async (settings) =>
    (await run(goBinaryPath(settings, ACTIONLINT), ['-version'])).code === 0 &&
    (await run(SHELLCHECK, ['--version'])).code === 0,

  env: (settings) => ({
    ACTIONLINT_BIN: goBinaryPath(settings, ACTIONLINT),
    SHELLCHECK_BIN: SHELLCHECK,
  }),

  stop: () => Promise.resolve(),
};
