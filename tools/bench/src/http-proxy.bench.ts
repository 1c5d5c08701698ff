/**
 * HTTP proxy overhead. Every server is a process of its own, and so is the load generator: the
 * upstream (bare node:http, a small JSON answer), the minimal Node forwarder (the baseline: what
 * any Node proxy must pay), Pelita's `POST /proxy` with every feature on (info access log and
 * forwarded-call log, metrics, validation, SSRF guard with the allowlist, redirects followed,
 * size cap) and Go's httputil reverse proxy (context: what a user could pick instead).
 * At 50 connections and at 1, each path is warmed up, then the paths alternate ROUNDS times; the
 * ratio is the median of the per-round ratios to the Node forwarder.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { figureRows, measureAlternating, type MeasuredPath } from './alternate';
import { startCommand, startProcess, startService, type StartedProcess } from './process';
import { report, table } from './report';

const DURATION_SECONDS = 5;
const WARM_UP_SECONDS = 2;
const ROUNDS = 3;
const ROOT = join(__dirname, '..', '..', '..');
const PROXY_MAIN = join(ROOT, 'services', 'http-proxy', 'dist', 'main.js');
const PLAIN_SERVER = join(__dirname, 'servers', 'plain-server.js');
const GO_SOURCE = join(__dirname, '..', 'go', 'reverse-proxy.go');

export async function run(): Promise<void> {
  const started: StartedProcess[] = [];
  const upstream = await startProcess(PLAIN_SERVER, ['upstream']);
  started.push(upstream);
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  // The proxy logs at its default level (info); its output goes to /dev/null.
  const proxy = await startService(PROXY_MAIN, { env: { ALLOWED_TARGETS: '127.0.0.0/8' } });
  try {
    const forwarder = await startProcess(PLAIN_SERVER, ['forwarder']);
    started.push(forwarder);
    const goProxy = await startGoProxy(upstreamUrl);
    if (goProxy) started.push(goProxy);

    const description = (host: string) => ({
      url: `${host}/proxy`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        connection: { host: upstreamUrl, endpoint: { path: '/items', method: 'get' } },
      }),
    });
    const paths: MeasuredPath[] = [
      {
        name: 'direct to upstream',
        load: { url: `${upstreamUrl}/items` },
        pid: upstream.child.pid,
      },
      {
        name: 'minimal Node forwarder',
        load: description(`http://127.0.0.1:${forwarder.port}`),
        pid: forwarder.child.pid,
      },
      {
        name: 'Pelita POST /proxy',
        load: description(proxy.url),
        baseline: 'minimal Node forwarder',
        pid: proxy.child.pid,
      },
      ...(goProxy
        ? [
            {
              name: 'Go httputil reverse proxy',
              load: { url: `http://127.0.0.1:${goProxy.port}/items` },
              baseline: 'minimal Node forwarder',
              pid: goProxy.child.pid,
            },
          ]
        : []),
    ];
    const targets = { 'Pelita POST /proxy': '>= 0.80' };
    for (const connections of [50, 1]) {
      const figures = await measureAlternating(paths, {
        connections,
        durationSeconds: DURATION_SECONDS,
        warmUpSeconds: WARM_UP_SECONDS,
        rounds: ROUNDS,
      });
      report(
        `\n${connections} connection(s), ${DURATION_SECONDS} s per run, median of ${ROUNDS} ` +
          'alternating rounds; ratio to the minimal Node forwarder; CPU us/req: the serving ' +
          'process (for the direct row, the upstream)',
      );
      table(figureRows(figures, targets));
    }
    if (!goProxy) report('(Go reverse proxy not measured: no `go` on PATH)');
  } finally {
    await proxy.stop();
    for (const process of started) await process.stop();
  }
}

/** Builds the Go reverse proxy from the standard library (cached by go) and starts it. */
async function startGoProxy(upstreamUrl: string): Promise<StartedProcess | undefined> {
  const dir = join(tmpdir(), 'pelita-bench');
  mkdirSync(dir, { recursive: true });
  const binary = join(dir, 'go-reverse-proxy');
  try {
    await promisify(execFile)('go', ['build', '-o', binary, GO_SOURCE], {
      env: { ...process.env, GOFLAGS: '-mod=mod', GO111MODULE: 'on' },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return startCommand(binary, [], { UPSTREAM: upstreamUrl });
}
