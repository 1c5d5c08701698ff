/**
 * HTTP proxy overhead: the same small JSON answer loaded directly from a local upstream, then
 * through `POST /proxy` of the built service running as its own process (as deployed: tracing
 * on, logs at warn). Prints the throughput ratio and the latency the proxy adds.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ratio, runCleanLoad, type LoadOptions, type LoadResult } from './load';
import { startService } from './process';
import { report, table } from './report';

const CONNECTIONS = 50;
const DURATION_SECONDS = 5;
const WARM_UP_SECONDS = 1;
const PROXY_MAIN = join(__dirname, '..', '..', '..', 'services', 'http-proxy', 'dist', 'main.js');
const ANSWER = JSON.stringify({
  items: [
    { id: 1, name: 'first' },
    { id: 2, name: 'second' },
  ],
});

export async function run(): Promise<void> {
  const upstream = await startUpstream();
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // The proxy logs at its default level (info); its output goes to /dev/null.
  const proxy = await startService(PROXY_MAIN, { env: { ALLOWED_TARGETS: '127.0.0.0/8' } });
  try {
    const direct: LoadOptions = { url: `${upstreamUrl}/items` };
    const proxied: LoadOptions = {
      url: `${proxy.url}/proxy`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        connection: { host: upstreamUrl, endpoint: { path: '/items', method: 'get' } },
      }),
    };
    // JIT and keep-alive pools warm on both paths before anything is measured.
    await measure(direct, WARM_UP_SECONDS);
    await measure(proxied, WARM_UP_SECONDS);
    const baseline = await measure(direct, DURATION_SECONDS);
    const pelita = await measure(proxied, DURATION_SECONDS);

    report(`${CONNECTIONS} connections, ${DURATION_SECONDS} s each, small JSON answer`);
    table([row('direct to upstream', baseline), row('through POST /proxy', pelita)]);
    const added = (key: 'p50Ms' | 'p99Ms') => (pelita[key] - baseline[key]).toFixed(2);
    table([
      {
        figure: 'throughput ratio (proxy / direct)',
        measured: ratio(pelita.requestsPerSecond, baseline.requestsPerSecond),
        target: '>= 0.60',
      },
      { figure: 'added p50 latency (ms)', measured: added('p50Ms'), target: '< 1' },
      { figure: 'added p99 latency (ms)', measured: added('p99Ms'), target: '-' },
    ]);
  } finally {
    await proxy.stop();
    upstream.closeAllConnections();
    upstream.close();
  }
}

function measure(options: LoadOptions, durationSeconds: number): Promise<LoadResult> {
  return runCleanLoad({ ...options, connections: CONNECTIONS, durationSeconds });
}

function row(path: string, result: LoadResult) {
  return {
    path,
    'req/s': Math.round(result.requestsPerSecond),
    'p50 ms': result.p50Ms,
    'p99 ms': result.p99Ms,
  };
}

async function startUpstream(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}
