/**
 * The load generator as its own process: `node load-generator.js '<LoadOptions JSON>'` runs
 * autocannon and prints the figures as one JSON line. Kept out of the benchmark's process so
 * the servers it starts (upstreams, sinks) never share an event loop with the load.
 */
import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from '../load';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? 10,
  });
  const figures: LoadResult = {
    requestsPerSecond: result.requests.total / (result.duration || 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
