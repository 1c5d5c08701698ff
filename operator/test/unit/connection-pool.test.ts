import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { KubeClient } from '../../src/kube/client';
import { PLATFORM_INSTALL } from '../../src/kube/kinds';
import { createOperatorMetrics } from '../../src/metrics';
import { createMetrics } from '@pelita/kit';

const DISCOVERY = { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] };

/**
 * A plain-HTTP stand-in for the API (client-node allows http only with skipTLSVerify): answers
 * discovery, lists with an empty list, anything else with an object; counts the TCP connections
 * and what came in.
 */
async function fakeApi() {
  const requests: Array<{ method?: string; url?: string; authorization?: string }> = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      const list = req.method === 'GET' && /platforminstalls\?/.test(req.url ?? '');
      const body =
        req.url === '/api/v1'
          ? DISCOVERY
          : list
            ? { items: [], metadata: {} }
            : { metadata: { name: 'x' } };
      res.end(JSON.stringify(body));
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'token-1' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: 'ns' }],
    currentContext: 'x',
  });
  return {
    config,
    requests,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('KubeClient connections', () => {
  let api: Awaited<ReturnType<typeof fakeApi>>;
  let client: KubeClient;

  beforeEach(async () => {
    api = await fakeApi();
    client = new KubeClient(api.config, createOperatorMetrics(createMetrics()));
  });
  afterEach(async () => {
    client.close();
    await api.close();
  });

  const configMap = (name: string): KubernetesObject =>
    ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'ns' },
      data: { a: '1' },
    }) as KubernetesObject;

  it('sends one request after another over one kept-alive connection, with the credentials on each', async () => {
    await client.apply(configMap('one'));
    await client.apply(configMap('two'));
    await client.readSecret('ns', 'platform');
    await client.list(PLATFORM_INSTALL, 'ns');
    await client.createEvent('ns', { metadata: { generateName: 'x.' }, involvedObject: {} });

    // The first GET is client-node's discovery of the ConfigMap's resource path.
    expect(api.requests.map((r) => r.method)).toEqual([
      'GET',
      'PATCH',
      'PATCH',
      'GET',
      'GET',
      'POST',
    ]);
    expect(api.requests.every((r) => r.authorization === 'Bearer token-1')).toBe(true);
    expect(api.connections()).toBe(1);
  });

  it('opens more connections only for requests sent at the same time', async () => {
    await client.apply(configMap('a')); // discovery and an apply, one connection
    await Promise.all(['b', 'c', 'd'].map((name) => client.apply(configMap(name))));
    await client.apply(configMap('e'));

    expect(api.requests).toHaveLength(6);
    expect(api.connections()).toBeLessThanOrEqual(3);
  });
});
