/**
 * Issue 15 on the real control plane: the operator creates each install's platform Secret (and
 * never touches one that exists), gives each container only its keys, and its NetworkPolicies
 * are admitted by the apiserver exactly as rendered (peers included). The Ingress is stored with
 * only core-backend's user-facing paths.
 */
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import { kubectl, waitFor } from '@pelita/testenv';
import { parseSpec, type PlatformInstall } from '../../src/crd/platform-install';
import { renderIngress } from '../../src/render';
import { renderNetworkPolicies } from '../../src/render/network-policy';
import { platformSecretKeys } from '../../src/service-catalog';
import {
  apply,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  platformInstall,
  readInstall,
  startOperator,
  status,
  type OperatorProcess,
} from './support';

const cluster = connect();
let namespace: string;
let operator: OperatorProcess;

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-isolation');
  operator = await startOperator({ kubeconfigPath: cluster.kubeconfigPath, namespace });
});

afterAll(async () => {
  const code = await operator?.stop();
  await deleteNamespace(cluster, namespace);
  if (code !== 0) process.stderr.write(operator.logs().slice(-6000));
  expect(code).toBe(0);
});

async function secret(name: string): Promise<V1Secret | undefined> {
  try {
    return await cluster.core.readNamespacedSecret({ namespace, name });
  } catch (err) {
    if (status(err) === 404) return undefined;
    throw err;
  }
}

const text = (s: V1Secret | undefined, key: string) =>
  Buffer.from(s?.data?.[key] ?? '', 'base64').toString('utf8');

async function containerEnv(deployment: string) {
  const live = await cluster.apps.readNamespacedDeployment({ namespace, name: deployment });
  return Object.fromEntries(
    (live.spec?.template.spec?.containers ?? []).map((c) => [
      c.name,
      {
        envFrom: c.envFrom ?? [],
        keys: (c.env ?? [])
          .filter((e) => e.valueFrom?.secretKeyRef?.name?.endsWith('-platform'))
          .map((e) => e.valueFrom?.secretKeyRef?.key)
          .sort(),
      },
    ]),
  );
}

describe('the platform Secret', () => {
  const name = 'keys';

  it('is created once with every key, owned by the install', async () => {
    await apply(cluster, platformInstall(namespace, name));
    const created = await waitFor(async () => secret(`${name}-platform`), {
      what: 'the platform Secret',
      timeoutMs: 30_000,
    });
    expect(Object.keys(created.data ?? {}).sort()).toEqual([...platformSecretKeys()].sort());
    const stored = await readInstall(cluster, namespace, name);
    expect(created.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'PlatformInstall', uid: stored.metadata?.uid }),
    ]);
    expect(text(created, 'jwt-private-key')).toContain('BEGIN PRIVATE KEY');
  });

  it('gives each container only its keys, and the public key through the ConfigMap', async () => {
    const deployments = ['http-proxy', 'user-service', 'policy-sync'].map((s) => `${name}-${s}`);
    await waitFor(() => Promise.all(deployments.map(containerEnv)).catch(() => false), {
      what: 'the Deployments',
      timeoutMs: 30_000,
    });
    expect(await containerEnv(`${name}-http-proxy`)).toEqual({
      'http-proxy': {
        envFrom: [{ configMapRef: { name: `${name}-http-proxy` } }],
        keys: ['http-proxy-token'],
      },
    });
    const user = await containerEnv(`${name}-user-service`);
    expect(user['user-service']?.keys).toEqual([
      'jwt-private-key',
      'policy-sync-token',
      'user-service-token',
    ]);
    const sync = await containerEnv(`${name}-policy-sync`);
    expect(sync.opa?.keys).toEqual(['opa-token']);
    const config = await cluster.core.readNamespacedConfigMap({
      namespace,
      name: `${name}-user-service`,
    });
    const generated = await secret(`${name}-platform`);
    expect(config.data?.JWT_PUBLIC_KEY).toBe(text(generated, 'jwt-public-key'));
  });

  it('is never changed once it exists, even when the operator reconciles again', async () => {
    const before = await secret(`${name}-platform`);
    const hash = async () =>
      (await cluster.apps.readNamespacedDeployment({ namespace, name: `${name}-http-proxy` })).spec
        ?.template.metadata?.annotations?.['pelita.io/config-hash'];
    const first = await hash();
    // A new secrets revision changes every pod template: proof of a whole reconcile since.
    await apply(cluster, {
      ...platformInstall(namespace, name),
      metadata: { name, namespace, annotations: { 'pelita.io/secrets-revision': '2' } },
    });
    await waitFor(async () => (await hash()) !== first, {
      what: 'a reconcile after the change',
      timeoutMs: 30_000,
    });
    const after = await secret(`${name}-platform`);
    expect(after?.metadata?.resourceVersion).toBe(before?.metadata?.resourceVersion);
    expect(after?.data).toEqual(before?.data);
  });

  it('is generated again when deleted, and the pods reading it roll onto the new keys', async () => {
    const before = await secret(`${name}-platform`);
    const hash = async (service: string) =>
      (await cluster.apps.readNamespacedDeployment({ namespace, name: `${name}-${service}` })).spec
        ?.template.metadata?.annotations?.['pelita.io/config-hash'];
    const [proxy, user] = [await hash('http-proxy'), await hash('user-service')];
    await cluster.core.deleteNamespacedSecret({ namespace, name: `${name}-platform` });
    // Secrets are not watched: the next reconcile notices. It is forced here by a change that
    // leaves the pods below alone (db-proxy's replicas), so only the new Secret can roll them.
    await apply(cluster, {
      ...platformInstall(namespace, name, { services: { 'db-proxy': { replicas: 2 } } }),
      metadata: { name, namespace, annotations: { 'pelita.io/secrets-revision': '2' } },
    });
    const again = await waitFor(
      async () => {
        const s = await secret(`${name}-platform`);
        return s && s.metadata?.uid !== before?.metadata?.uid && s;
      },
      { what: 'a new platform Secret', timeoutMs: 30_000 },
    );
    expect(text(again, 'opa-token')).not.toBe(text(before, 'opa-token'));
    await waitFor(
      async () => (await hash('http-proxy')) !== proxy && (await hash('user-service')) !== user,
      { what: 'the http-proxy and user-service pods rolling', timeoutMs: 30_000 },
    );
    const config = await cluster.core.readNamespacedConfigMap({
      namespace,
      name: `${name}-user-service`,
    });
    expect(config.data?.JWT_PUBLIC_KEY).toBe(text(again, 'jwt-public-key'));
  });

  it("keeps the platform team's own Secret as it is and reports the keys it lacks", async () => {
    const own = 'own-keys';
    await cluster.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: own }, stringData: { 'opa-token': 'theirs' } },
    });
    await apply(cluster, platformInstall(namespace, 'byok', { platformSecretRef: { name: own } }));
    const degraded = await waitFor(
      async () => {
        const c = condition(await readInstall(cluster, namespace, 'byok'), 'Degraded');
        return c?.reason === 'PlatformSecretIncomplete' && c;
      },
      { what: 'Degraded=PlatformSecretIncomplete', timeoutMs: 30_000 },
    );
    expect(degraded.message).toContain('jwt-private-key');
    expect(degraded.message).not.toContain('opa-token');
    const kept = await secret(own);
    expect(Object.keys(kept?.data ?? {})).toEqual(['opa-token']);
    expect(text(kept, 'opa-token')).toBe('theirs');
    expect(kept?.metadata?.ownerReferences).toBeUndefined();
  });
});

describe('NetworkPolicies', () => {
  const name = 'fenced';

  it('are admitted by the apiserver exactly as rendered, every rule with its peers', async () => {
    await apply(
      cluster,
      platformInstall(namespace, name, { ingress: { enabled: true, host: 'fenced.example.com' } }),
    );
    const stored = await readInstall(cluster, namespace, name);
    const install: PlatformInstall = {
      apiVersion: 'pelita.io/v1alpha1',
      kind: 'PlatformInstall',
      metadata: { name, namespace, uid: stored.metadata?.uid ?? '' },
      spec: parseSpec(stored.spec),
    };
    const rendered = renderNetworkPolicies(install);
    expect(rendered.length).toBeGreaterThan(3);
    const live = await waitFor(
      () => {
        const result = kubectl(cluster.kubeconfigPath, [
          'get',
          'networkpolicies',
          '-n',
          namespace,
          '-l',
          `app.kubernetes.io/instance=${name}`,
          '-o',
          'json',
        ]);
        const items = (JSON.parse(result.stdout) as { items: KubernetesObject[] }).items;
        return items.length === rendered.length && items;
      },
      { what: 'every NetworkPolicy', timeoutMs: 30_000 },
    );
    for (const policy of rendered) {
      const found = live.find((p) => p.metadata?.name === policy.metadata?.name) as
        (KubernetesObject & { spec: unknown }) | undefined;
      expect({ name: policy.metadata?.name, spec: found?.spec }).toEqual({
        name: policy.metadata?.name,
        spec: policy.spec,
      });
    }
    const core = live.find((p) => p.metadata?.name === `${name}-user-service`) as unknown as {
      spec: { ingress: Array<{ from?: unknown[] }> };
    };
    expect(core.spec.ingress.every((rule) => (rule.from ?? []).length > 0)).toBe(true);
  });

  it('are removed when spec.networkPolicy.enabled is turned off', async () => {
    await apply(
      cluster,
      platformInstall(namespace, name, {
        ingress: { enabled: true, host: 'fenced.example.com' },
        networkPolicy: { enabled: false },
      }),
    );
    await waitFor(
      () => {
        const result = kubectl(cluster.kubeconfigPath, [
          'get',
          'networkpolicies',
          '-n',
          namespace,
          '-l',
          `app.kubernetes.io/instance=${name}`,
          '-o',
          'name',
        ]);
        return result.stdout.trim() === '';
      },
      { what: 'no NetworkPolicy left', timeoutMs: 30_000 },
    );
  });
});

describe('the Ingress', () => {
  const name = 'gated';

  it('is stored as rendered: core-backend with its user-facing paths only', async () => {
    await apply(
      cluster,
      platformInstall(namespace, name, {
        services: { 'core-backend': { enabled: true } },
        ingress: { enabled: true, host: 'gated.example.com' },
      }),
    );
    const stored = await readInstall(cluster, namespace, name);
    const install: PlatformInstall = {
      apiVersion: 'pelita.io/v1alpha1',
      kind: 'PlatformInstall',
      metadata: { name, namespace, uid: stored.metadata?.uid ?? '' },
      spec: parseSpec(stored.spec),
    };
    const rendered = renderIngress(install, 'core-backend');
    const live = await waitFor(
      () => {
        const result = kubectl(cluster.kubeconfigPath, [
          'get',
          'ingress',
          `${name}-core-backend`,
          '-n',
          namespace,
          '-o',
          'json',
          '--ignore-not-found',
        ]);
        return result.stdout.trim() !== '' && (JSON.parse(result.stdout) as KubernetesObject);
      },
      { what: 'the Ingress', timeoutMs: 30_000 },
    );
    const { spec } = live as KubernetesObject & { spec: unknown };
    expect(spec).toEqual(rendered?.spec);
    const paths = rendered?.spec?.rules?.[0]?.http?.paths.map((p) => p.path) ?? [];
    expect(paths).toContain('/api');
    expect(paths).not.toContain('/metrics');
    expect(paths).not.toContain('/api-docs');
  });
});
