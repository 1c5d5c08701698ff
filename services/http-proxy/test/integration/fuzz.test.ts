/**
 * Schemathesis against the proxy's `/api-docs.json`: documented answers only, invalid input
 * rejected with a 4xx, no crash. Every outbound request is re-pointed at a local upstream
 * (method, path, query, headers and body kept), so generated hosts never leave this machine
 * while the real client (auth, JWT login step, encodings, size cap) still runs.
 */
import { Writable } from 'node:stream';
import { runSchemathesis } from '@pelita/fuzz';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { createHttpProxyService, settingsSchema, type UpstreamClient } from '../../src';
import { createUpstreamClient } from '../../src/forward/upstream-client';
import { startUpstream, type RecordingUpstream } from './support/recording-upstream';

describe('http-proxy under schemathesis', () => {
  let upstream: RecordingUpstream;
  let running: RunningServer;

  beforeAll(async () => {
    upstream = await startUpstream();
    const settings = loadConfig(settingsSchema, { ALLOWED_TARGETS: '127.0.0.0/8' });
    const real = createUpstreamClient({
      allowedTargets: settings.ALLOWED_TARGETS,
      maxRedirects: settings.MAX_REDIRECTS,
      maxResponseBytes: settings.MAX_RESPONSE_BYTES,
    });
    const loopbackOnly: UpstreamClient = {
      send: (request, signal) =>
        real.send(
          { ...request, url: new URL(request.url.pathname + request.url.search, upstream.url) },
          signal,
        ),
      close: () => real.close(),
    };
    const logger = createLogger({
      name: 'http-proxy',
      destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
    });
    const service = createHttpProxyService(settings, logger, { upstream: loopbackOnly });
    running = await serveInProcess(service, logger, { shutdownTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await running?.stop();
    await upstream?.close();
  });

  it('finds no undocumented answer and no crash', async () => {
    const result = await runSchemathesis({ baseUrl: running.url, maxExamples: 60 });
    if (!result.passed) throw new Error(result.output);
    // The generated calls really went through to the (local) upstream.
    expect(upstream.requests.length).toBeGreaterThan(10);
  }, 300_000);
});
