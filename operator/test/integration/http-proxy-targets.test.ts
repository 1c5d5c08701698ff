/**
 * `spec.apis.allowedTargets` reaches the real http-proxy: the service is built from the settings
 * the operator renders into its ConfigMap (as `envFrom` gives them to the container), and a
 * private upstream — here one on loopback — is reached exactly when the install lists it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpProxyService, settingsSchema } from '@pelita/http-proxy';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import type { PlatformInstallSpecInput } from '../../src/crd/platform-install';
import { renderConfigMap } from '../../src/render';
import { makeInstall } from '../unit/fixtures';

let upstream: http.Server;
let upstreamPort: number;

beforeAll(async () => {
  // Dual-stack: `localhost` reaches it whichever of its addresses the proxy connects to.
  upstream = http.createServer((_req, res) => res.end('internal answer'));
  await new Promise<void>((resolve) => upstream.listen(0, '::', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

/** The proxy as its pod would run it for this install: the ConfigMap's data is its environment. */
async function proxyFor(apis: PlatformInstallSpecInput['apis']): Promise<RunningServer> {
  const data = renderConfigMap(makeInstall({ apis }), 'http-proxy')?.data ?? {};
  const settings = loadConfig(settingsSchema, { ...data, PORT: '0', LOG_LEVEL: 'silent' });
  const logger = createLogger({ name: 'http-proxy', level: 'silent' });
  return serveInProcess(createHttpProxyService(settings, logger), logger, {
    shutdownTimeoutMs: 1000,
  });
}

async function callThrough(proxy: RunningServer, host: string): Promise<Response> {
  return fetch(`${proxy.url}/proxy`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ connection: { host, endpoint: { path: '/status' } } }),
  });
}

describe('spec.apis.allowedTargets in the real http-proxy', () => {
  it('refuses a private upstream while the install lists nothing (public addresses only)', async () => {
    const proxy = await proxyFor(undefined);
    try {
      const res = await callThrough(proxy, `http://127.0.0.1:${upstreamPort}`);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'target_forbidden',
      );
    } finally {
      await proxy.stop();
    }
  });

  it('reaches it once the install lists its range, and still refuses what is not listed', async () => {
    const proxy = await proxyFor({ allowedTargets: ['127.0.0.0/8', 'billing.acme.internal'] });
    try {
      const res = await callThrough(proxy, `http://127.0.0.1:${upstreamPort}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('internal answer');
      // Another private range, not listed: still refused.
      const metadata = await callThrough(proxy, 'http://169.254.169.254');
      expect(metadata.status).toBe(403);
    } finally {
      await proxy.stop();
    }
  });

  it('reaches it by a listed host name', async () => {
    const proxy = await proxyFor({ allowedTargets: ['localhost'] });
    try {
      const res = await callThrough(proxy, `http://localhost:${upstreamPort}`);
      expect(res.status).toBe(200);
      // The address alone is not listed.
      expect((await callThrough(proxy, `http://127.0.0.1:${upstreamPort}`)).status).toBe(403);
    } finally {
      await proxy.stop();
    }
  });
});
