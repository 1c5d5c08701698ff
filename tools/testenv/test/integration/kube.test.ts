// The Kubernetes control plane: the shared one from the env file runs workloads on kwok's fake
// nodes, and a test's own apiserver survives a restart.
import { randomUUID } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { run } from '../../src/cli/proc';
import { requireEnv, startKubeApiserver, waitFor } from '../../src/index';

/** Namespace names as @kubernetes/client-node 1.4 lists them, from a kubeconfig file. */
async function namespaceNames(kubeconfigPath: string): Promise<string[]> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const list = await config.makeApiClient(CoreV1Api).listNamespace();
  return list.items.map((namespace) => namespace.metadata?.name ?? '');
}

async function kubectl(args: string[], input?: string): Promise<string> {
  const { KUBECTL_BIN, KUBECONFIG } = requireEnv('KUBECTL_BIN', 'KUBECONFIG');
  const { code, stdout, stderr } = await run(KUBECTL_BIN, args, {
    env: { KUBECONFIG },
    timeoutMs: 20_000,
    ...(input === undefined ? {} : { input }),
  });
  if (code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${code}): ${stderr}`);
  return stdout;
}

const apply = (...objects: object[]) =>
  kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));

async function readyReplicas(namespace: string, resource: string): Promise<number | undefined> {
  const text = await kubectl(['get', '-n', namespace, resource, '-o', 'json']);
  return (JSON.parse(text) as { status?: { readyReplicas?: number } }).status?.readyReplicas;
}

function podTemplate(app: string, extra: Record<string, unknown> = {}) {
  return {
    metadata: { labels: { app } },
    spec: { containers: [{ name: app, image: `registry.invalid/${app}:1`, ...extra }] },
  };
}

describe('shared control plane (KUBECONFIG)', () => {
  const namespace = `testenv-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await kubectl(['create', 'namespace', namespace]);
  });

  afterAll(async () => {
    await kubectl(['delete', 'namespace', namespace, '--wait=false']);
  });

  it('@kubernetes/client-node reads the kubeconfig and lists namespaces', async () => {
    const { KUBECONFIG } = requireEnv('KUBECONFIG');
    await expect(namespaceNames(KUBECONFIG)).resolves.toContain(namespace);
  });

  it('kubectl and the apiserver report the pinned version', async () => {
    const { KUBE_VERSION } = requireEnv('KUBE_VERSION');
    const version = JSON.parse(await kubectl(['version', '-o', 'json'])) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(version.clientVersion.gitVersion).toBe(KUBE_VERSION);
    expect(version.serverVersion.gitVersion).toBe(KUBE_VERSION);
  });

  it('a Deployment with 2 replicas becomes ready on the fake nodes', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: podTemplate('web'),
      },
    });
    await waitFor(async () => (await readyReplicas(namespace, 'deployment/web')) === 2, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'deployment web ready',
    });
    const pods = JSON.parse(await kubectl(['get', 'pods', '-n', namespace, '-o', 'json'])) as {
      items: { spec: { nodeName?: string }; status: { podIP?: string } }[];
    };
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) {
      expect(pod.spec.nodeName).toMatch(/^kwok-node-/);
      expect(pod.status.podIP).toMatch(/^10\.0\./);
    }
  });

  it('a StatefulSet with a volumeClaimTemplate becomes ready on a static hostPath volume', async () => {
    // PersistentVolumes are cluster-wide: this one is named after the namespace and reserved for
    // its claim (claimRef), so parallel tests do not take each other's volume.
    const volume = `${namespace}-data`;
    await apply({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: volume },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: `/tmp/${volume}` },
        claimRef: { namespace, name: 'data-db-0' },
      },
    });
    try {
      await apply({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace },
        spec: {
          serviceName: 'db',
          replicas: 1,
          selector: { matchLabels: { app: 'db' } },
          template: podTemplate('db', {
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          }),
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: {
                accessModes: ['ReadWriteOnce'],
                // No storage class: no provisioner here, the binder takes the static volume.
                storageClassName: '',
                resources: { requests: { storage: '1Gi' } },
              },
            },
          ],
        },
      });
      await waitFor(async () => (await readyReplicas(namespace, 'statefulset/db')) === 1, {
        timeoutMs: 45_000,
        intervalMs: 250,
        what: 'statefulset db ready',
      });
      const claim = JSON.parse(
        await kubectl(['get', '-n', namespace, 'pvc/data-db-0', '-o', 'json']),
      );
      expect(claim.status.phase).toBe('Bound');
      expect(claim.spec.volumeName).toBe(volume);
    } finally {
      await kubectl(['delete', '-n', namespace, 'statefulset/db', 'pvc/data-db-0', '--wait=false']);
      await kubectl(['delete', `pv/${volume}`, '--wait=false']);
    }
  });
});

describe('startKubeApiserver', () => {
  it('starts a private apiserver on its own etcd prefix that answers again after a restart', async () => {
    const apiserver = await startKubeApiserver();
    try {
      await expect(namespaceNames(apiserver.kubeconfigPath)).resolves.toEqual(
        expect.arrayContaining(['default', 'kube-system']),
      );
      const name = `private-${randomUUID().slice(0, 8)}`;
      const own = ['--kubeconfig', apiserver.kubeconfigPath];
      await kubectl([...own, 'create', 'namespace', name]);
      await apiserver.restart();
      await expect(namespaceNames(apiserver.kubeconfigPath)).resolves.toContain(name);
      // Its own prefix is its own cluster: the shared one does not see the namespace.
      await expect(namespaceNames(requireEnv('KUBECONFIG').KUBECONFIG)).resolves.not.toContain(
        name,
      );
    } finally {
      await apiserver.stop();
    }
    await expect(fetch(`${apiserver.url}/readyz`)).rejects.toThrow();
    // Two apiserver starts (each bootstraps its own cluster) on a busy 2-core machine.
  }, 180_000);
});
