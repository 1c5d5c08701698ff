// CLI: `node tools/testenv/dist/cli/main.js up [e2e]|install|down|status` (`make testenv` runs up,
// `make e2e` runs up e2e). Not the kit's runMain: testenv depends on no workspace (the kit's tests
// depend on it, and `make testenv` builds only this package).
import { inspect } from 'node:util';
import { currentSettings, type Settings } from '../lib/settings';
import { log } from './log';
import { down, install, status, up } from './testenv';

function command(argv: string[]): ((settings: Settings) => Promise<number>) | undefined {
  switch (argv.join(' ')) {
    case 'up':
      return (settings) => up(settings, log);
    case 'up e2e':
      return (settings) => up(settings, log, 'e2e');
    case 'install':
      return (settings) => install(settings, log);
    case 'down':
      return (settings) => down(settings, log);
    case 'status':
      return (settings) => status(settings, log);
    default:
      return undefined;
  }
}

async function main(argv: string[]): Promise<number> {
  const run = command(argv);
  if (!run) {
    process.stderr.write('usage: testenv up [e2e] | install | down | status\n');
    return 2;
  }
  const settings = currentSettings();
  log('testenv', `${argv.join(' ')}: state ${settings.dir}, cache ${settings.cacheDir}`);
  return run(settings);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`testenv: ${error instanceof Error ? error.message : inspect(error)}\n`);
    process.exitCode = 1;
  },
);
