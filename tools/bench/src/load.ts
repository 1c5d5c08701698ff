/** HTTP load with autocannon, reduced to the figures the benchmarks compare. */
import autocannon from 'autocannon';

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

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? 10,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
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
