/**
 * Cost of the kit's request pipeline (access log, metrics, zod validation; then tracing with
 * spans exported to a local OTLP sink) against plain express serving the same JSON endpoint.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ratio, runLoad } from './load';
import { startService } from './process';
import { report, table } from './report';

const ECHO_SERVER = join(__dirname, 'servers', 'echo-server.js');

/** Accepts OTLP exports and drops them, so tracing runs its whole path. */
async function startOtlpSink() {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  return { sink, url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}` };
}

export async function run(): Promise<void> {
  const body = JSON.stringify({ name: 'pelita', count: 1 });
  const { sink, url: otlpUrl } = await startOtlpSink();
  const modes: Array<{ name: string; args: string[]; env: Record<string, string> }> = [
    { name: 'bare', args: ['bare'], env: {} },
    { name: 'kit', args: ['kit'], env: {} },
    { name: 'kit+tracing', args: ['kit'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl } },
  ];
  const results = [];
  for (const mode of modes) {
    const server = await startService(ECHO_SERVER, {
      args: mode.args,
      env: mode.env,
      readyPath: '/ready',
    });
    try {
      const load = await runLoad({
        url: `${server.url}/echo`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: 50,
        durationSeconds: 5,
      });
      results.push({ mode: mode.name, ...load });
    } finally {
      await server.stop();
    }
  }
  sink.close();
  const [bare, kit, traced] = results;
  if (!bare || !kit || !traced) throw new Error('kit bench: a run is missing');
  table(
    results.map((r) => ({
      server: r.mode,
      'req/s': Math.round(r.requestsPerSecond),
      'p50 ms': r.p50Ms,
      'p99 ms': r.p99Ms,
      errors: r.errors + r.non2xx,
    })),
  );
  for (const measured of [kit, traced]) {
    report(
      `${measured.mode}/bare throughput ratio: ${ratio(measured.requestsPerSecond, bare.requestsPerSecond)} ` +
        `(added p50 ${(measured.p50Ms - bare.p50Ms).toFixed(2)} ms, p99 ${(measured.p99Ms - bare.p99Ms).toFixed(2)} ms)`,
    );
  }
}
