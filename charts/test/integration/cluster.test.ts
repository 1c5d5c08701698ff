// charts/pelita-operator against real apiservers: every rendered object passes a server-side dry
// run, and the operator, run as a process with exactly the rendered Deployment's settings and the
// chart's ServiceAccount's own token, reconciles a PlatformInstall to Ready under the chart's RBAC.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import {
  kubectl,
  kubectlApply,
  startKubeApiserver,
  waitFor,
  type KubeApiserverProcess,
  type KubectlResult,
} from '@pelita/testenv';
import { loadConfig } from '@pelita/kit';
import { stringify } from 'yaml';
import {
  loadPolicies,
  parseSpec,
  renderDesired,
  settingsSchema,
  type PlatformInstall,
} from '@pelita/operator';
import {
  apply,
  condition,
  connect,
  createNamespace,
  deleteNamespace,
  exists,
  installCrd,
  platformInstall,
  readInstall,
  REPO_ROOT,
  startOperator,
  type Cluster,
  type OperatorProcess,
  SERVICE_MONITOR_CRD,
} from '../../../operator/test/integration/support';
import { FULL_VALUES, RELEASE_NAMESPACE, findOne, renderChart, type Manifest } from '../helm';

const cluster = connect();
const suffix = randomBytes(3).toString('hex');
// Contains the chart name, so it is also the full name: cluster-scoped names are unique per run.
const release = `pelita-operator-${suffix}`;

/** The Prometheus Operator's PrometheusRule CRD, schema left open: the dry run checks the kind. */
const PROMETHEUS_RULE_CRD = {
  ...SERVICE_MONITOR_CRD,
  metadata: { name: 'prometheusrules.monitoring.coreos.com' },
  spec: {
    ...SERVICE_MONITOR_CRD.spec,
    names: {
      plural: 'prometheusrules',
      singular: 'prometheusrule',
      kind: 'PrometheusRule',
      listKind: 'PrometheusRuleList',
    },
  },
};

/** `kubectl apply --dry-run=server` of `manifests`; one result line per object accepted. */
function dryRun(kubeconfigPath: string, manifests: Manifest[]): KubectlResult {
  const input = manifests.map((m) => stringify(m)).join('---\n');
  return kubectl(kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], input);
}

function expectAccepted(result: KubectlResult, manifests: Manifest[]): void {
  expect({ status: result.status, stderr: result.stderr }).toMatchObject({ status: 0 });
  const accepted = result.stdout
    .split('\n')
    .filter((line) => / (created|configured|unchanged) \(server dry run\)$/.test(line));
  expect(accepted).toHaveLength(manifests.length);
}

function waitEstablished(kubeconfigPath: string, crd: string): void {
  const args = ['wait', '--for=condition=Established', '--timeout=30s', `crd/${crd}`];
  const result = kubectl(kubeconfigPath, args);
  if (result.status !== 0) throw new Error(`CRD ${crd} not established: ${result.stderr}`);
}

/** SIGTERM, then SIGKILL after `ms`: a shutdown that hangs must not outlive the test run. */
async function stopWithin(operator: OperatorProcess, ms: number): Promise<number | null | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  const code = await Promise.race([operator.stop(), hung]);
  clearTimeout(timer);
  if (code === 'hung') await operator.kill();
  return code;
}

/** The container's env as the kubelet would resolve it for pod `pod` (downward API included). */
function containerEnv(
  deployment: Manifest,
  pod: { name: string; namespace: string },
): Record<string, string> {
  const container = (deployment as any).spec.template.spec.containers[0];
  const fields: Record<string, string> = {
    'metadata.name': pod.name,
    'metadata.namespace': pod.namespace,
  };
  const env: Record<string, string> = {};
  for (const e of container.env as Array<{ name: string; value?: string; valueFrom?: any }>) {
    const field = e.valueFrom?.fieldRef?.fieldPath as string | undefined;
    const value = e.value ?? (field === undefined ? undefined : fields[field]);
    if (value === undefined) throw new Error(`cannot resolve env ${e.name}: ${JSON.stringify(e)}`);
    env[e.name] = value;
  }
  return env;
}

describe('kubectl apply --dry-run=server', () => {
  let namespace: string;
  let apiserver: KubeApiserverProcess | undefined;

  beforeAll(async () => {
    namespace = await createNamespace(cluster, 'chart-dry-run');
  });

  afterAll(async () => {
    await deleteNamespace(cluster, namespace);
    await apiserver?.stop();
  });

  it('accepts every object rendered with default values', async () => {
    const manifests = await renderChart({ releaseName: release, namespace });
    expect(manifests.map((m) => m.kind)).toContain('ClusterRole');
    expectAccepted(dryRun(cluster.kubeconfigPath, manifests), manifests);
  });

  // On an apiserver of its own: the values' fixed namespaces (tenants, monitoring) and the
  // ServiceMonitor CRD it needs then never reach the shared cluster.
  it('accepts every object rendered with ci/full-values.yaml, ServiceMonitor and PrometheusRule included', async () => {
    const manifests = await renderChart({ valuesFiles: [FULL_VALUES] });
    expect(manifests.map((m) => m.kind)).toEqual(
      expect.arrayContaining(['ServiceMonitor', 'PrometheusRule']),
    );
    apiserver = await startKubeApiserver();
    const own = connect(apiserver.kubeconfigPath);
    const namespaces = [
      ...new Set(manifests.flatMap((m) => (m.metadata.namespace ? [m.metadata.namespace] : []))),
    ].sort();
    expect(namespaces).toEqual([RELEASE_NAMESPACE, 'monitoring', 'tenants'].sort());
    kubectlApply(own.kubeconfigPath, [
      ...namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
      SERVICE_MONITOR_CRD,
      PROMETHEUS_RULE_CRD,
    ]);
    waitEstablished(apiserver.kubeconfigPath, SERVICE_MONITOR_CRD.metadata.name);
    waitEstablished(apiserver.kubeconfigPath, PROMETHEUS_RULE_CRD.metadata.name);
    expectAccepted(dryRun(apiserver.kubeconfigPath, manifests), manifests);
  }, 120_000);
});

describe('the operator with the rendered settings and only the chart RBAC', () => {
  let releaseNamespace: string;
  let tenantNamespace: string;
  let manifests: Manifest[];
  let serviceAccount: string;
  let env: Record<string, string>;
  let dir: string;
  let operator: OperatorProcess | undefined;
  let operatorKubeconfig: string;

  const canI = (args: string[]) =>
    kubectl(cluster.kubeconfigPath, [
      'auth',
      'can-i',
      ...args,
      `--as=system:serviceaccount:${releaseNamespace}:${serviceAccount}`,
    ]).stdout.trim();

  beforeAll(async () => {
    releaseNamespace = await createNamespace(cluster, 'chart-release');
    tenantNamespace = await createNamespace(cluster, 'chart-tenants');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pelita-chart-'));
    // Default values but one watched namespace: watching all of them, this operator would also
    // reconcile the PlatformInstalls of test files running in parallel.
    manifests = await renderChart({
      releaseName: release,
      namespace: releaseNamespace,
      set: [`watchNamespace=${tenantNamespace}`],
    });
    const rbac = manifests.filter((m) =>
      [
        'CustomResourceDefinition',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ].includes(m.kind),
    );
    // Namespaced: the ClusterRole listing installs of every namespace and its binding included.
    expect(rbac).toHaveLength(12);
    // The same field manager as installCrd, whose next apply drops the chart's labels again.
    kubectlApply(cluster.kubeconfigPath, rbac);
    waitEstablished(
      cluster.kubeconfigPath,
      findOne(manifests, 'CustomResourceDefinition').metadata.name,
    );
    serviceAccount = findOne(manifests, 'ServiceAccount').metadata.name;

    const deployment = findOne(manifests, 'Deployment');
    const podName = `${deployment.metadata.name}-7d4b9c-${suffix}`;
    env = containerEnv(deployment, { name: podName, namespace: releaseNamespace });
    const { PORT: _port, POLICIES_DIR: _policies, ...settings } = env;
    operatorKubeconfig = serviceAccountKubeconfig(cluster, releaseNamespace, serviceAccount, dir);
    operator = await startOperator({
      kubeconfigPath: operatorKubeconfig,
      namespace: releaseNamespace,
      identity: podName,
      // startOperator adds only a free PORT and the repository's policies (the image has them
      // in /app/policies) to these.
      env: settings,
    });
  }, 60_000);

  afterAll(async () => {
    let code: number | null | 'hung' | undefined;
    try {
      code = operator && (await stopWithin(operator, 20_000));
      if (code !== 0) process.stderr.write(operator?.logs().slice(-6000) ?? '');
    } finally {
      await deleteNamespace(cluster, tenantNamespace);
      await deleteNamespace(cluster, releaseNamespace);
      kubectl(cluster.kubeconfigPath, [
        'delete',
        'clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding',
        '-l',
        `app.kubernetes.io/instance=${release}`,
        '--ignore-not-found',
      ]);
      // Back to the repository's CRD, without the chart's labels and annotation.
      await installCrd(cluster);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(code).toBe(0);
  }, 60_000);

  it('gets every setting it reads, its port and probe paths matching the Deployment', async () => {
    const container = (findOne(manifests, 'Deployment') as any).spec.template.spec.containers[0];
    const http = (container.ports as Array<{ name: string; containerPort: number }>).find(
      (p) => p.name === 'http',
    );
    expect(Number(env.PORT)).toBe(http?.containerPort);
    // zod drops unknown keys: a misspelt name would silently leave the setting at its default.
    // OTEL_* are read by @pelita/kit's tracing instead.
    const settings = loadConfig(settingsSchema, env) as Record<string, unknown>;
    for (const [name, value] of Object.entries(env)) {
      if (!name.startsWith('OTEL_')) expect([name, String(settings[name])]).toEqual([name, value]);
    }
    expect(env.POLICIES_DIR).toBe('/app/policies');
    expect(env).toMatchObject({
      WATCH_NAMESPACE: tenantNamespace,
      LEADER_ELECTION: 'true',
      LEADER_ELECTION_NAMESPACE: releaseNamespace,
      POD_NAMESPACE: releaseNamespace,
    });
    for (const probe of [container.livenessProbe, container.readinessProbe]) {
      expect(probe.httpGet.port).toBe('http');
      const response = await fetch(`${operator!.url}${probe.httpGet.path}`);
      expect(response.status).toBe(200);
    }
  });

  it('runs as the ServiceAccount itself', () => {
    const whoami = kubectl(path.join(dir, 'kubeconfig'), ['auth', 'whoami', '-o', 'json']);
    expect(JSON.parse(whoami.stdout).status.userInfo.username).toBe(
      `system:serviceaccount:${releaseNamespace}:${serviceAccount}`,
    );
  });

  it('reconciles a PlatformInstall in the watched namespace to Ready with every child', async () => {
    const name = 'acme';
    await apply(cluster, platformInstall(tenantNamespace, name));
    await waitFor(
      async () =>
        condition(await readInstall(cluster, tenantNamespace, name), 'Ready')?.status === 'True',
      { what: 'Ready=True', timeoutMs: 90_000, intervalMs: 500 },
    );
    const stored = await readInstall(cluster, tenantNamespace, name);
    const install: PlatformInstall = {
      apiVersion: 'pelita.io/v1alpha1',
      kind: 'PlatformInstall',
      metadata: { name, namespace: tenantNamespace, uid: stored.metadata!.uid! },
      spec: parseSpec(stored.spec),
    };
    const desired = renderDesired({ install, policies: loadPolicies(`${REPO_ROOT}/policies`) });
    expect(desired.length).toBeGreaterThan(20);
    const missing: KubernetesObject[] = [];
    for (const object of desired) if (!(await exists(cluster, object))) missing.push(object);
    expect(missing.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([]);
    expect(stored.status?.observedGeneration).toBe(stored.metadata?.generation);
  }, 120_000);

  it('needed nothing the chart does not grant: no 403 in its log', () => {
    const denied = operator!
      .logs()
      .split('\n')
      .filter((line) => /forbidden|HTTP-Code: 403|"(?:code|statusCode|status)":403\b/i.test(line))
      .map((line) => line.slice(0, 600));
    expect(denied).toEqual([]);
  });

  it('may only get and create Secrets, in its namespace; is denied Pods and other namespaces', () => {
    expect(canI(['get', 'secrets', '-n', tenantNamespace])).toBe('yes');
    expect(canI(['create', 'secrets', '-n', tenantNamespace])).toBe('yes');
    for (const verb of ['list', 'watch', 'update', 'patch', 'delete']) {
      expect(canI([verb, 'secrets', '-n', tenantNamespace])).toBe('no');
    }
    expect(canI(['list', 'secrets', '--all-namespaces'])).toBe('no');
    expect(canI(['get', 'secrets', '-n', releaseNamespace])).toBe('no');
    expect(canI(['list', 'pods', '-n', tenantNamespace])).toBe('no');
    expect(canI(['create', 'deployments.apps', '-n', 'default'])).toBe('no');
    expect(canI(['update', 'leases.coordination.k8s.io', '-n', tenantNamespace])).toBe('no');
    expect(canI(['delete', 'customresourcedefinitions.apiextensions.k8s.io'])).toBe('no');
  });

  it('may create only Opaque Secrets labelled as its own (no ServiceAccount token Secrets)', async () => {
    const create = (name: string, type: string, labels: Record<string, string>) =>
      kubectl(
        operatorKubeconfig,
        ['create', '-f', '-', '-n', tenantNamespace],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name,
            labels,
            annotations: { 'kubernetes.io/service-account.name': 'default' },
          },
          type,
        }),
      );
    const ours = { 'app.kubernetes.io/managed-by': 'pelita-operator' };
    // The policy reaches the apiserver's admission a moment after it is created.
    const refused = await waitFor(
      () => {
        const attempt = create(`sa-token-${randomBytes(3).toString('hex')}`, SA_TOKEN, ours);
        return attempt.status !== 0 && attempt;
      },
      { what: 'the Secret admission policy to take effect', timeoutMs: 30_000 },
    );
    expect(refused.stderr).toContain('creates only Opaque Secrets');
    expect(create('unlabelled', 'Opaque', {}).stderr).toContain('labelled');
    expect(create('opaque-ours', 'Opaque', ours).status).toBe(0);
    // An administrator is not bound by it.
    const admin = kubectl(
      cluster.kubeconfigPath,
      ['create', '-f', '-', '-n', tenantNamespace],
      JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'by-admin' } }),
    );
    expect(admin.status).toBe(0);
  });

  it('is granted no verb it does not use (reconciled to Ready above without them)', () => {
    const tenant = ['-n', tenantNamespace];
    expect(canI(['update', 'platforminstalls.pelita.io', ...tenant])).toBe('no');
    expect(canI(['update', 'platforminstalls.pelita.io', '--subresource=status', ...tenant])).toBe(
      'no',
    );
    expect(canI(['update', 'deployments.apps', ...tenant])).toBe('no');
    expect(canI(['create', 'events.events.k8s.io', ...tenant])).toBe('no');
    expect(canI(['list', 'leases.coordination.k8s.io', '-n', releaseNamespace])).toBe('no');
    expect(canI(['watch', 'leases.coordination.k8s.io', '-n', releaseNamespace])).toBe('no');
  });

  it('may patch PlatformInstall status and finalizers, create events and update its lease', () => {
    const status = ['--subresource=status', '-n', tenantNamespace];
    expect(canI(['patch', 'platforminstalls.pelita.io', ...status])).toBe('yes');
    // Its finalizer (deletionPolicy), and the installs of every namespace (shared data).
    expect(canI(['patch', 'platforminstalls.pelita.io', '-n', tenantNamespace])).toBe('yes');
    expect(canI(['list', 'platforminstalls.pelita.io', '--all-namespaces'])).toBe('yes');
    expect(canI(['create', 'events', '-n', tenantNamespace])).toBe('yes');
    expect(canI(['update', 'leases.coordination.k8s.io', '-n', releaseNamespace])).toBe('yes');
    expect(canI(['watch', 'customresourcedefinitions.apiextensions.k8s.io'])).toBe('yes');
  });
});

/**
 * A kubeconfig for the admin one's cluster with a TokenRequest token of the ServiceAccount: its
 * real identity, so the apiserver enforces the chart's RBAC and the process holds no admin
 * credentials a client code path could fall back to.
 */
const SA_TOKEN = 'kubernetes.io/service-account-token';

function serviceAccountKubeconfig(
  admin: Cluster,
  namespace: string,
  name: string,
  dir: string,
): string {
  const token = kubectl(admin.kubeconfigPath, [
    'create',
    'token',
    name,
    '-n',
    namespace,
    '--duration=1h',
  ]);
  if (token.status !== 0) throw new Error(`kubectl create token failed: ${token.stderr}`);
  const server = admin.config.getCurrentCluster()!;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [server],
    users: [{ name, token: token.stdout.trim() }],
    contexts: [{ name, cluster: server.name, user: name }],
    currentContext: name,
  });
  const file = path.join(dir, 'kubeconfig');
  fs.writeFileSync(file, config.exportConfig(), { mode: 0o600 });
  return file;
}
