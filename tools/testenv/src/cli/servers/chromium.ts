// Headless Chromium for the web pages' tests (Playwright drives it through playwright-core,
// which downloads no browser of its own). Not a server: Debian's package on the PATH; starting
// or stopping does nothing.
import fs from 'node:fs';
import { run } from '../proc';
import { type Server } from '../server';

const BINARY = '/usr/bin/chromium';

export const chromium: Server = {
  name: 'chromium',
  startTimeoutMs: 10_000,

  isInstalled: () => fs.existsSync(BINARY),

  install: (ctx) => ctx.apt(['chromium', 'fonts-dejavu-core']),

  start: () => Promise.resolve(),

  isReady: async () => (await run(BINARY, ['--version'])).code === 0,

  env: () => ({ CHROMIUM_BIN: BINARY }),

  stop: () => Promise.resolve(),
};
