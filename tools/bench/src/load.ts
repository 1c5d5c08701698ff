/**
 * HTTP load with autocannon, reduced to the figures the benchmarks compare. The load runs in a
 * process of its own (`servers/load-generator.js`): on the benchmark's event loop it would
 * compete with whatever else that process serves.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

const LOAD_GENERATOR = join(__dirname, 'servers', 'load-generator.js');

function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [LOAD_GENERATOR, JSON.stringify(options)],
      { maxBuffer: 1024 * 1024 },
      (err, stdout) => {
        if (err) return reject(new Error(`load generator for ${options.url}: ${err.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult);
      },
    );
  });
}

/** Like runLoad, but a run with failed or non-2xx answers is an error, not a figure. */
export async function runCleanLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await runLoad(options);
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(
      `${options.url}: ${result.errors} errors and ${result.non2xx} non-2xx answers under load`,
    );
  }
  return result;
}

export function ratio(measured: number, baseline: number): string {
  return baseline === 0 ? 'n/a' : (measured / baseline).toFixed(2);
}
