/**
 * Cost of the kit's request pipeline (access log line, metrics, request id, zod validation) on
 * one JSON route, against the same route on bare express; then the cost of tracing (spans
 * exported over OTLP to a local sink) against the kit without it. Bare express against bare
 * node:http is printed for context. Every server, the sink and the load generator are processes
 * of their own; the paths are warmed up, then alternate ROUNDS times, and each ratio is the
 * median of the per-round ratios. Tracing is measured with every trace sampled (the SDK's
 * default), and for context with `parentbased_traceidratio` at 10 %.
 */
import { join } from 'node:path';
import { figureRows, measureAlternating, type MeasuredPath } from './alternate';
import type { LoadOptions } from './load';
import { startProcess, startService, type StartedService } from './process';
import { report, table } from './report';

const ECHO_SERVER = join(__dirname, 'servers', 'echo-server.js');
const PLAIN_SERVER = join(__dirname, 'servers', 'plain-server.js');
const CONNECTIONS = 50;
const DURATION_SECONDS = 5;
const WARM_UP_SECONDS = 2;
const ROUNDS = 3;

export async function run(): Promise<void> {
  const sink = await startProcess(PLAIN_SERVER, ['sink']);
  const node = await startProcess(PLAIN_SERVER, ['echo']);
  const services: StartedService[] = [];
  const start = async (args: string[], env: Record<string, string> = {}) => {
    const service = await startService(ECHO_SERVER, { args, env, readyPath: '/ready' });
    services.push(service);
    return service;
  };
  try {
    const express = await start(['bare']);
    const kit = await start(['kit']);
    const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}` };
    const traced = await start(['kit'], otlp);
    // What a busy service would run: new traces sampled at 10 %, a sampled caller's always.
    const sampled = await start(['kit'], {
      ...otlp,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
    const echo = (base: string): LoadOptions => ({
      url: `${base}/echo`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'pelita', count: 1 }),
    });
    const paths: MeasuredPath[] = [
      { name: 'bare node:http', load: echo(`http://127.0.0.1:${node.port}`), pid: node.child.pid },
      {
        name: 'bare express',
        load: echo(express.url),
        baseline: 'bare node:http',
        pid: express.child.pid,
      },
      { name: 'kit', load: echo(kit.url), baseline: 'bare express', pid: kit.child.pid },
      {
        name: 'kit + tracing (OTLP)',
        load: echo(traced.url),
        baseline: 'kit',
        pid: traced.child.pid,
      },
      {
        name: 'kit + tracing, 10 % sampled',
        load: echo(sampled.url),
        baseline: 'kit',
        pid: sampled.child.pid,
      },
    ];
    const figures = await measureAlternating(paths, {
      connections: CONNECTIONS,
      durationSeconds: DURATION_SECONDS,
      warmUpSeconds: WARM_UP_SECONDS,
      rounds: ROUNDS,
    });
    report(
      `${CONNECTIONS} connections, ${DURATION_SECONDS} s per run, median of ${ROUNDS} alternating ` +
        'rounds; each ratio is to the row named in its baseline (express: node:http, kit: ' +
        'express, tracing: kit)',
    );
    table(
      figureRows(figures, {
        'bare express': 'context',
        kit: '>= 0.85',
        'kit + tracing (OTLP)': '>= 0.70',
        'kit + tracing, 10 % sampled': 'context',
      }),
    );
  } finally {
    for (const service of services) await service.stop();
    await node.stop();
    await sink.stop();
  }
}
