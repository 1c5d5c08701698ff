/**
 * HTTP proxy overhead: the same small JSON answer loaded directly from a local upstream, then
 * through `POST /proxy` of the built service running as its own process (as deployed: tracing
 * on, logs at warn). Prints the throughput ratio and the latency the proxy adds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ratio, runLoad, type LoadOptions, type LoadResult } from './load';
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
  const proxy = await startProxy();
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
    proxy.child.kill('SIGTERM');
    await once(proxy.child, 'exit');
    upstream.closeAllConnections();
    upstream.close();
  }
}

async function measure(options: LoadOptions, durationSeconds: number): Promise<LoadResult> {
  const result = await runLoad({ ...options, connections: CONNECTIONS, durationSeconds });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(
      `${options.url}: ${result.errors} errors and ${result.non2xx} non-2xx answers under load`,
    );
  }
  return result;
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

async function startProxy(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [PROXY_MAIN], {
    env: { ...process.env, PORT: String(port), ALLOWED_TARGETS: '127.0.0.0/8', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`http-proxy exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`http-proxy did not answer ${url}/health within 20 s (built? npx tsc -b)`);
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
