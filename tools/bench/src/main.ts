/**
 * `make bench`: runs every `*.bench.js` beside this file (or those named on the command line,
 * e.g. `node tools/bench/dist/main.js http-proxy`). Each exports `run()`, measures Pelita and a
 * baseline in the same run, and prints the ratio.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { report } from './report';

interface Benchmark {
  run: () => Promise<void>;
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((file) => file.endsWith('.bench.js'))
    .filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.bench\.js$/, '')))
    .sort();
  if (files.length === 0)
    throw new Error(`no benchmark matches ${wanted.join(', ') || '*.bench.js'}`);
  // Every process a benchmark starts runs on this same Node (`process.execPath`).
  report(`node ${process.version}`);
  for (const file of files) {
    report(`\n== ${file.replace(/\.bench\.js$/, '')}`);
    const benchmark = (await import(join(__dirname, file))) as Benchmark;
    await benchmark.run();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
