/**
 * Changes reach the pods: a ConfigMap-only change and a new secrets revision change the pod
 * template (its config hash), an autoscaler's replica count survives the operator's applies, an
 * env entry of the spec replaces the derived one instead of failing the apply, and quantities
 * are stored as rendered (no drift on the next pass).
 */
import type { V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '@pelita/testenv';
import { needsApply } from '../../src/controller/drift';
import { parseSpec } from '../../src/crd/platform-install';
import { loadPolicies } from '../../src/policies';
import {
  CONFIG_HASH_ANNOTATION,
  renderDeployment,
  SECRETS_REVISION_ANNOTATION,
} from '../../src/render';
import {
  apply,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  MERGE_PATCH,
  patchInstall,
  platformInstall,
  readInstall,
  REPO_ROOT,
  startOperator,
  status,
  TEST_DEPENDENCIES,
  type OperatorProcess,
} from './support';

const cluster = connect();
let namespace: string;
let operator: OperatorProcess;
const name = 'roll';

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-rollout');
  operator = await startOperator({ kubeconfigPath: cluster.kubeconfigPath, namespace });
});

afterAll(async () => {
  const code = await operator?.stop();
  await deleteNamespace(cluster, namespace);
  if (code !== 0) process.stderr.write(operator.logs().slice(-6000));
  expect(code).toBe(0);
});

async function deployment(service: string): Promise<V1Deployment | undefined> {
  try {
    return await cluster.apps.readNamespacedDeployment({ namespace, name: `${name}-${service}` });
  } catch (err) {
    if (status(err) === 404) return undefined;
    throw err;
  }
}

const hash = (d: V1Deployment | undefined) =>
  d?.spec?.template.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];

/** Waits until the service's Deployment carries a config hash other than `before`. */
async function rolled(service: string, before: string | undefined): Promise<V1Deployment> {
  let live: V1Deployment | undefined;
  await waitFor(
    async () => {
      live = await deployment(service);
      return hash(live) !== undefined && hash(live) !== before;
    },
    { what: `${service} pod template with a new config hash`, timeoutMs: 30_000, intervalMs: 200 },
  );
  return live!;
}

describe('changes to an install', () => {
  it('are applied once, with the spec env replacing the derived one and quantities as stored', async () => {
    await apply(
      cluster,
      platformInstall(namespace, name, {
        dependencies: {
          ...TEST_DEPENDENCIES,
          llm: { ...TEST_DEPENDENCIES.llm, apiKeySecretRef: { name: 'llm', key: 'key' } },
        },
        services: {
          'http-proxy': { autoscaling: { enabled: true } },
          summarizer: {
            env: [{ name: 'API_KEY_LOCAL', value: 'from-spec' }],
            resources: { requests: { cpu: '0.5', memory: '1024Mi' } },
          },
        },
      }),
    );
    const summarizer = await rolled('summarizer', undefined);
    const env = summarizer.spec?.template.spec?.containers[0]?.env ?? [];
    expect(env.filter((e) => e.name === 'API_KEY_LOCAL')).toEqual([
      { name: 'API_KEY_LOCAL', value: 'from-spec' },
    ]);
    const stored = await readInstall(cluster, namespace, name);
    const install = {
      apiVersion: 'pelita.io/v1alpha1' as const,
      kind: 'PlatformInstall' as const,
      metadata: { name, namespace, uid: stored.metadata!.uid! },
      spec: parseSpec(stored.spec),
    };
    const desired = renderDeployment(install, 'summarizer', loadPolicies(`${REPO_ROOT}/policies`));
    expect(summarizer.spec?.template.spec?.containers[0]?.resources?.requests).toEqual({
      cpu: '500m',
      memory: '1Gi',
    });
    // What the apiserver stored is what the operator renders: the next pass sees no drift.
    expect(needsApply(desired!, summarizer)).toBe(false);
  });

  it('roll the pods on a ConfigMap-only change, leaving an autoscaled replica count alone', async () => {
    const before = await rolled('http-proxy', undefined);
    // An HPA scales through the scale subresource; a merge patch of spec.replicas does the same.
    await cluster.apps.patchNamespacedDeployment(
      { namespace, name: `${name}-http-proxy`, body: { spec: { replicas: 3 } } },
      MERGE_PATCH,
    );
    await patchInstall(cluster, namespace, name, {
      spec: { observability: { logLevel: 'debug' } },
    });
    const after = await rolled('http-proxy', hash(before));
    expect(after.spec?.replicas).toBe(3);
    // Only the hash changed in the template: the log level lives in the ConfigMap.
    expect(after.spec?.template.spec?.containers).toEqual(before.spec?.template.spec?.containers);
  });

  it('roll the pods when the install is annotated with a new secrets revision', async () => {
    const before = await deployment('summarizer');
    await patchInstall(cluster, namespace, name, {
      metadata: { annotations: { [SECRETS_REVISION_ANNOTATION]: 'rotated-1' } },
    });
    await rolled('summarizer', hash(before));
  });
});
