/**
 * Cost of the kit's request pipeline (access log, metrics, tracing, zod validation) against
 * plain express serving the same JSON endpoint.
 */
import { join } from 'node:path';
import { ratio, runLoad } from './load';
import { startProcess } from './process';
import { report, table } from './report';

const ECHO_SERVER = join(__dirname, 'servers', 'echo-server.js');

export async function run(): Promise<void> {
  const body = JSON.stringify({ name: 'pelita', count: 1 });
  const results = [];
  for (const mode of ['bare', 'kit'] as const) {
    // Access logs go to /dev/null-like sink: the child's stdout is only read for the port line.
    const server = await startProcess(ECHO_SERVER, [mode]);
    try {
      const load = await runLoad({
        url: `http://127.0.0.1:${server.port}/echo`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: 50,
        durationSeconds: 5,
      });
      results.push({ mode, ...load });
    } finally {
      await server.stop();
    }
  }
  const [bare, kit] = results;
  if (!bare || !kit) throw new Error('kit bench: a run is missing');
  table(
    results.map((r) => ({
      server: r.mode,
      'req/s': Math.round(r.requestsPerSecond),
      'p50 ms': r.p50Ms,
      'p99 ms': r.p99Ms,
      errors: r.errors + r.non2xx,
    })),
  );
  report(
    `kit/bare throughput ratio: ${ratio(kit.requestsPerSecond, bare.requestsPerSecond)} ` +
      `(added p50 ${(kit.p50Ms - bare.p50Ms).toFixed(2)} ms, p99 ${(kit.p99Ms - bare.p99Ms).toFixed(2)} ms)`,
  );
}
