// CLI: `node tools/testenv/dist/cli/main.js up|install|down|status` (`make testenv` runs up). Not the
// kit's runMain: testenv depends on no workspace (the kit's tests depend on it, and `make testenv`
// builds only this package).
import { inspect } from 'node:util';
import { currentSettings } from '../lib/settings';
import { log } from './log';
import { down, install, status, up } from './testenv';

const commands = { up, install, down, status };

async function main(argv: string[]): Promise<number> {
  const name = argv[0];
  if (argv.length !== 1 || name === undefined || !Object.hasOwn(commands, name)) {
    process.stderr.write('usage: testenv up|install|down|status\n');
    return 2;
  }
  const settings = currentSettings();
  log('testenv', `${name}: state ${settings.dir}, cache ${settings.cacheDir}`);
  return commands[name as keyof typeof commands](settings, log);
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
