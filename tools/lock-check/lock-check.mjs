#!/usr/bin/env node
// `make lint`: the lock file records every platform's optional packages (@swc/core-darwin-arm64,
// ...), so `npm ci` works on every OS and CPU. npm leaves an optional package out of the lock
// without a word when it cannot fetch that version (a registry mirror that lacks it); `npm ci`
// elsewhere then refuses the lock as out of sync. This fails on such a gap, naming it.
import { readFileSync } from 'node:fs';

// The repository's lock file, or the one named on the command line (tests).
const file = process.argv[2] ?? new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages ?? {};

/** Where node would find `name` from the package at `path`: its own node_modules, then its parents'. */
function resolves(path, name) {
  for (let dir = path; ;) {
    if (packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at === -1 ? '' : dir.slice(0, at);
  }
}

const missing = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!resolves(path, name))
      missing.push(`${name} (optional dependency of ${path || 'the root'})`);
  }
}
if (missing.length > 0) {
  process.stderr.write(
    `package-lock.json lacks ${missing.length} optional packages, so \`npm ci\` fails on other platforms:\n` +
      missing.map((line) => `  ${line}`).join('\n') +
      '\nPin the parent to a version whose every platform package the registry serves (see README, "Lock file").\n',
  );
  process.exit(1);
}
process.stdout.write(
  `lock-check: every optional package of ${Object.keys(packages).length} entries is recorded\n`,
);
