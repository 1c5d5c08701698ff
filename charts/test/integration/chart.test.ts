// charts/pelita-operator through the real helm binary (HELM_BIN from `make testenv`): lint, render
// with default and full values, reject typos, and check what the chart grants and runs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  CHART_DIR,
  FULL_VALUES,
  RELEASE_NAMESPACE,
  findOne,
  helm,
  renderChart,
  templateArgs,
  type Manifest,
} from '../helm';

const ROOT = path.resolve(__dirname, '../../..');
// No `update`: children are written by server-side apply (patch; create when missing).
const CRUD = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** Rules flattened to `group/resource` → sorted verbs, merging rules that repeat a resource. */
function grants(rules: Rule[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const rule of rules) {
    expect(rule.resourceNames).toBeUndefined();
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = `${group || 'core'}/${resource}`;
        out[key] ??= new Set();
        for (const verb of rule.verbs) out[key].add(verb);
      }
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

const OPERATOR_GRANTS: Record<string, string[]> = {
  'pelita.io/platforminstalls': ['get', 'list', 'patch', 'watch'],
  'pelita.io/platforminstalls/status': ['patch'],
  'pelita.io/platforminstalls/finalizers': ['update'],
  'core/events': ['create'],
  'apps/deployments': [...CRUD].sort(),
  'apps/statefulsets': [...CRUD].sort(),
  'core/services': [...CRUD].sort(),
  'core/serviceaccounts': [...CRUD].sort(),
  'core/configmaps': [...CRUD].sort(),
  'core/secrets': ['create', 'get'],
  'policy/poddisruptionbudgets': [...CRUD].sort(),
  'networking.k8s.io/ingresses': [...CRUD].sort(),
  'networking.k8s.io/networkpolicies': [...CRUD].sort(),
  'monitoring.coreos.com/servicemonitors': [...CRUD].sort(),
};

function env(deployment: Manifest): Record<string, unknown> {
  const container = (deployment as any).spec.template.spec.containers[0];
  const vars = container.env as Array<{ name: string; value?: string; valueFrom?: unknown }>;
  return Object.fromEntries(vars.map((e) => [e.name, e.value ?? e.valueFrom]));
}

describe('helm lint', () => {
  it.each([
    ['default values', []],
    ['full values', ['--values', FULL_VALUES]],
  ])('passes --strict with %s', async (_name, args) => {
    const result = await helm(['lint', '--strict', CHART_DIR, ...args]);
    expect({ code: result.code, out: result.stdout + result.stderr }).toMatchObject({ code: 0 });
    expect(result.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });
});

describe('values.schema.json', () => {
  it.each([
    ['imagee.tag=x', /imagee/],
    ['image.tagg=x', /tagg/],
    ['serviceMonitor.enable=true', /enable/],
    ['dashboards.label.team=x', /label/],
  ])('rejects the unknown key in --set %s', async (entry, message) => {
    const result = await helm(templateArgs({ set: [entry] }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/additional properties|additionalProperties/);
    expect(result.stderr).toMatch(message);
  });

  it.each([
    'logLevel=verbose',
    'image.pullPolicy=Sometimes',
    'maxConcurrentReconciles=0',
    'watchNamespace=Not_A_Namespace',
    'serviceMonitor.interval=often',
  ])('rejects the invalid value --set %s', async (entry) => {
    const result = await helm(templateArgs({ set: [entry] }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/schema/);
  });

  it('rejects the typo in helm lint too', async () => {
    const result = await helm(['lint', CHART_DIR, '--set', 'imagee.tag=x']);
    expect(result.code).not.toBe(0);
  });

  it('refuses several replicas without leader election', async () => {
    const result = await helm(
      templateArgs({ set: ['replicaCount=2', 'leaderElection.enabled=false'] }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/requires leaderElection\.enabled/);
  });
});

describe('helm template with default values', () => {
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = await renderChart();
  });

  it('renders the expected objects', () => {
    const kinds = manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(kinds).toEqual(
      [
        'ClusterRole/pelita-operator',
        'ClusterRole/pelita-operator-crds',
        'ClusterRoleBinding/pelita-operator',
        'ClusterRoleBinding/pelita-operator-crds',
        'ConfigMap/pelita-operator-dashboard-operator',
        'ConfigMap/pelita-operator-dashboard-platform',
        'ConfigMap/pelita-operator-dashboard-saturation',
        'CustomResourceDefinition/platforminstalls.pelita.io',
        'Deployment/pelita-operator',
        'Role/pelita-operator-leader-election',
        'RoleBinding/pelita-operator-leader-election',
        'Service/pelita-operator',
        'ServiceAccount/pelita-operator',
        'ValidatingAdmissionPolicy/pelita-operator-secrets',
        'ValidatingAdmissionPolicyBinding/pelita-operator-secrets',
      ].sort(),
    );
    const clusterScoped = ['Cluster', 'Custom', 'ValidatingAdmissionPolicy'];
    for (const m of manifests.filter((m) => !clusterScoped.some((k) => m.kind.startsWith(k)))) {
      expect(m.metadata.namespace).toBe(RELEASE_NAMESPACE);
    }
  });

  it('installs the generated CRD unchanged, kept on uninstall', () => {
    const crd = findOne(manifests, 'CustomResourceDefinition');
    const source = parse(
      readFileSync(path.join(ROOT, 'crds/platforminstalls.pelita.io.yaml'), 'utf8'),
    );
    expect(crd.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(crd.metadata.labels).toMatchObject({
      'app.kubernetes.io/part-of': 'pelita',
      'app.kubernetes.io/managed-by': 'Helm',
    });
    const { metadata: _rendered, ...renderedRest } = crd;
    const { metadata: _source, ...sourceRest } = source;
    expect(renderedRest).toEqual(sourceRest);
    expect(crd.metadata.name).toBe(source.metadata.name);
  });

  it('binds the operator to Opaque Secrets of its own through an admission policy', () => {
    const policy = findOne(manifests, 'ValidatingAdmissionPolicy') as unknown as {
      spec: {
        matchConditions: Array<{ expression: string }>;
        validations: Array<{ expression: string }>;
      };
    };
    expect(policy.spec.matchConditions[0]?.expression).toContain(
      `system:serviceaccount:${RELEASE_NAMESPACE}:pelita-operator`,
    );
    expect(policy.spec.validations.map((v) => v.expression)).toEqual([
      "has(object.type) && object.type == 'Opaque'",
      expect.stringContaining("['app.kubernetes.io/managed-by'] == 'pelita-operator'"),
    ]);
    const binding = findOne(manifests, 'ValidatingAdmissionPolicyBinding') as any;
    expect(binding.spec).toEqual({
      policyName: 'pelita-operator-secrets',
      validationActions: ['Deny'],
    });
  });

  it('grants the operator exactly its rules, cluster-wide: on Secrets only get and create, nothing on Pods', () => {
    const role = findOne(manifests, 'ClusterRole', 'pelita-operator') as any;
    expect(grants(role.rules)).toEqual(OPERATOR_GRANTS);
    const crds = findOne(manifests, 'ClusterRole', 'pelita-operator-crds') as any;
    expect(grants(crds.rules)).toEqual({
      'apiextensions.k8s.io/customresourcedefinitions': ['get', 'list', 'watch'],
    });
    const leases = findOne(manifests, 'Role', 'pelita-operator-leader-election') as any;
    expect(leases.metadata.namespace).toBe(RELEASE_NAMESPACE);
    expect(grants(leases.rules)).toEqual({
      'coordination.k8s.io/leases': ['create', 'get', 'update'],
    });
    for (const r of manifests.filter((m) => m.kind.endsWith('Role')) as any[]) {
      for (const rule of r.rules as Rule[]) {
        // get/create name one Secret each; list or watch would hand over every Secret's value.
        if (rule.resources.includes('secrets')) expect(rule.verbs).toEqual(['get', 'create']);
        expect(rule.resources).not.toContain('pods');
        expect(rule.resources).not.toContain('*');
        expect(rule.verbs).not.toContain('*');
      }
    }
    for (const binding of manifests.filter((m) => m.kind.endsWith('RoleBinding')) as any[]) {
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: 'pelita-operator', namespace: RELEASE_NAMESPACE },
      ]);
    }
  });

  it('runs the operator image with its settings, probes and a locked-down security context', () => {
    const deployment = findOne(manifests, 'Deployment') as any;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(deployment.spec.replicas).toBe(1);
    expect(container.image).toBe('ghcr.io/pelita/operator:0.1.0');
    expect(pod.serviceAccountName).toBe('pelita-operator');
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(env(deployment)).toEqual({
      PORT: '8080',
      LOG_LEVEL: 'info',
      WATCH_NAMESPACE: '',
      LEADER_ELECTION: 'true',
      LEADER_ELECTION_NAMESPACE: RELEASE_NAMESPACE,
      LEADER_ELECTION_LEASE_NAME: 'pelita-operator',
      POD_NAME: { fieldRef: { fieldPath: 'metadata.name' } },
      POD_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      MAX_CONCURRENT_RECONCILES: '4',
      POLICIES_DIR: '/app/policies',
      OTEL_SERVICE_NAME: 'pelita-operator',
    });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 10001,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(pod.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
    expect(container.resources.requests).toEqual({ cpu: '50m', memory: '128Mi' });
  });

  it('exposes port 8080 `http` for metrics, selecting the operator pods', () => {
    const service = findOne(manifests, 'Service') as any;
    const deployment = findOne(manifests, 'Deployment') as any;
    expect(service.spec.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' },
    ]);
    expect(deployment.spec.selector.matchLabels).toEqual(service.spec.selector);
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
  });

  it('ships the dashboards as ConfigMaps labelled for the Grafana sidecar', () => {
    const configMaps = manifests.filter((m) => m.kind === 'ConfigMap') as any[];
    expect(configMaps).toHaveLength(3);
    for (const cm of configMaps) {
      expect(cm.metadata.labels.grafana_dashboard).toBe('1');
      const entries = Object.entries<string>(cm.data);
      expect(entries).toHaveLength(1);
      const [key, json] = entries[0]!;
      expect(key).toMatch(/^pelita-[a-z]+\.json$/);
      const name = key.replace(/^pelita-/, '');
      expect(json.trimEnd()).toBe(
        readFileSync(path.join(CHART_DIR, 'dashboards', name), 'utf8').trimEnd(),
      );
      expect(JSON.parse(json).schemaVersion).toBe(39);
    }
  });
});

describe('helm template with every toggle on (ci/full-values.yaml)', () => {
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = await renderChart({ valuesFiles: [FULL_VALUES] });
  });

  it('scopes the operator rules to the watched namespace with a Role', () => {
    const role = findOne(manifests, 'Role', 'pelita') as any;
    expect(role.metadata.namespace).toBe('tenants');
    expect(grants(role.rules)).toEqual(OPERATOR_GRANTS);
    const binding = findOne(manifests, 'RoleBinding', 'pelita') as any;
    expect(binding.metadata.namespace).toBe('tenants');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'pelita',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'pelita-operator-sa', namespace: RELEASE_NAMESPACE },
    ]);
    // Cluster scope keeps the read-only CRD rule, and lists installs (deletionPolicy Delete
    // checks that no install of another namespace shares the data).
    const clusterRoles = manifests.filter((m) => m.kind === 'ClusterRole');
    expect(clusterRoles.map((r) => r.metadata.name).sort()).toEqual([
      'pelita-crds',
      'pelita-installs',
    ]);
    const installs = findOne(manifests, 'ClusterRole', 'pelita-installs') as any;
    expect(grants(installs.rules)).toEqual({ 'pelita.io/platforminstalls': ['list'] });
  });

  it('passes the values to the operator', () => {
    const deployment = findOne(manifests, 'Deployment') as any;
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBe(2);
    expect(pod.containers[0].image).toBe('registry.example.com/pelita/operator:0.1.0-rc.1');
    expect(pod.containers[0].imagePullPolicy).toBe('Always');
    expect(pod.imagePullSecrets).toEqual([{ name: 'registry-credentials' }]);
    expect(env(deployment)).toMatchObject({
      LOG_LEVEL: 'debug',
      WATCH_NAMESPACE: 'tenants',
      LEADER_ELECTION_LEASE_NAME: 'pelita-operator-leader',
      MAX_CONCURRENT_RECONCILES: '8',
      ALLOWED_IMAGE_REGISTRIES: 'registry.example.com/pelita,docker.io/openpolicyagent',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
      NODE_OPTIONS: '--max-old-space-size=384',
    });
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    expect(pod.tolerations).toHaveLength(1);
    expect(pod.affinity.podAntiAffinity).toBeDefined();
    expect(pod.priorityClassName).toBe('platform-critical');
    expect(deployment.spec.template.metadata.labels.team).toBe('platform');
    expect(deployment.spec.template.metadata.annotations).toEqual({
      'example.com/scrape': 'true',
    });
  });

  it('creates the ServiceMonitor with its extra labels', () => {
    const monitor = findOne(manifests, 'ServiceMonitor') as any;
    const service = findOne(manifests, 'Service') as any;
    expect(monitor.metadata.labels.release).toBe('prometheus');
    expect(monitor.spec.selector.matchLabels).toEqual(service.spec.selector);
    expect(monitor.spec.namespaceSelector).toEqual({ matchNames: [RELEASE_NAMESPACE] });
    expect(monitor.spec.endpoints).toEqual([
      { port: 'http', path: '/metrics', interval: '15s', scrapeTimeout: '10s' },
    ]);
  });

  it('creates the PrometheusRule with its extra labels, the operator selected by its Service', () => {
    const rule = findOne(manifests, 'PrometheusRule') as any;
    expect(rule.metadata.labels.release).toBe('prometheus');
    expect(rule.metadata.namespace).toBe(RELEASE_NAMESPACE);
    const expressions = JSON.stringify(rule.spec.groups);
    // fullnameOverride: pelita is the operator Service, so the job Prometheus gives its series.
    expect(expressions).toContain(`job=\\"pelita\\", namespace=\\"${RELEASE_NAMESPACE}\\"`);
  });

  it('puts the dashboards in dashboards.namespace with extra labels and annotations', () => {
    const configMaps = manifests.filter((m) => m.kind === 'ConfigMap') as any[];
    expect(configMaps).toHaveLength(3);
    for (const cm of configMaps) {
      expect(cm.metadata.namespace).toBe('monitoring');
      expect(cm.metadata.labels).toMatchObject({ grafana_dashboard: '1', team: 'platform' });
      expect(cm.metadata.annotations).toEqual({ grafana_folder: 'Pelita' });
    }
  });
});

describe('helm template with features off', () => {
  it('leaves out the CRD, dashboards, RBAC, ServiceAccount and leader-election Role', async () => {
    const manifests = await renderChart({
      set: [
        'crds.install=false',
        'dashboards.enabled=false',
        'rbac.create=false',
        'serviceAccount.create=false',
        'serviceAccount.name=existing',
        'leaderElection.enabled=false',
      ],
    });
    expect(manifests.map((m) => m.kind).sort()).toEqual(['Deployment', 'Service']);
    const deployment = findOne(manifests, 'Deployment') as any;
    expect(deployment.spec.template.spec.serviceAccountName).toBe('existing');
    expect(env(deployment).LEADER_ELECTION).toBe('false');
  });

  it('omits only the leader-election Role when leader election is off', async () => {
    const manifests = await renderChart({ set: ['leaderElection.enabled=false'] });
    expect(manifests.filter((m) => m.kind === 'Role')).toEqual([]);
    expect(manifests.filter((m) => m.kind === 'ClusterRole')).toHaveLength(2);
  });
});
