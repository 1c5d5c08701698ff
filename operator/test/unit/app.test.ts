import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createMetrics } from '@pelita/kit';
import { createApp } from '../../src/app';

const logger = createLogger({ name: 'test', level: 'silent' });

async function serveApp(healthy: () => boolean): Promise<{ url: string; server: Server }> {
  const server = createApp({ logger, metrics: createMetrics(), healthy }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('operator endpoints', () => {
  it('/healthz answers 200 while the lease is fresh and 503 once it is not', async () => {
    let fresh = true;
    const { url, server } = await serveApp(() => fresh);
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      fresh = false;
      const stale = await fetch(`${url}/healthz`);
      expect(stale.status).toBe(503);
      expect(await stale.json()).toMatchObject({ error: { code: 'lease_not_renewed' } });
      // Readiness does not depend on the lease: a standby serves metrics too.
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
