import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import { SERVICE_NAMES } from '../../src/crd/platform-install';
import {
  renderConfigMap,
  renderDeployment,
  renderDesired,
  renderIngress,
  renderStatefulSet,
  renderPodDisruptionBudget,
  renderPoliciesConfigMap,
  renderService,
  renderServiceAccount,
  renderServiceMonitor,
  renderWorkload,
} from '../../src/render';
import { enabledServices } from '../../src/render/enabled-services';
import { allEnabled, makeInstall, minimalSpec } from './fixtures';

const policies = {
  'authz.rego': 'package pelita.authz\n',
  'authz_test.rego': 'package pelita.authz_test\n',
  'README.md': '# not a policy\n',
};

const withDependencies = makeInstall({
  dependencies: {
    ...minimalSpec.dependencies,
    postgres: {
      url: 'postgres://pg.db:5432/pelita',
      usernameSecretRef: { name: 'pg', key: 'user' },
      passwordSecretRef: { name: 'pg', key: 'password' },
    },
    redis: { url: 'redis://redis.db:6379/0', passwordSecretRef: { name: 'redis', key: 'pw' } },
    s3: {
      url: 'http://minio:9000',
      bucket: 'acme',
      accessKeySecretRef: { name: 's3', key: 'id' },
      secretKeySecretRef: { name: 's3', key: 'secret' },
    },
    llm: {
      url: 'http://llm:8080/v1',
      model: 'gpt-x',
      apiKeySecretRef: { name: 'llm', key: 'key' },
    },
    smtp: { url: 'smtps://mail.example.com', from: 'no-reply@example.com' },
  },
});

function mainContainer(workload: V1Deployment | V1StatefulSet | null) {
  const container = workload?.spec?.template.spec?.containers[0];
  if (!container) throw new Error('no main container');
  return container;
}

describe('renderers', () => {
  it('names children <install>-<service> and labels and owns them', () => {
    const install = makeInstall();
    const deployment = renderDeployment(install, 'summarizer');
    expect(deployment?.metadata).toEqual({
      name: 'acme-summarizer',
      namespace: 'tenant-acme',
      labels: {
        'app.kubernetes.io/name': 'summarizer',
        'app.kubernetes.io/instance': 'acme',
        'app.kubernetes.io/part-of': 'pelita',
        'app.kubernetes.io/managed-by': 'pelita-operator',
        'app.kubernetes.io/component': 'summarizer',
        'app.kubernetes.io/version': '1.2.3',
        'pelita.io/tenant': 'acme',
      },
      ownerReferences: [
        {
          apiVersion: 'pelita.io/v1alpha1',
          kind: 'PlatformInstall',
          name: 'acme',
          uid: 'uid-1234',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(deployment?.spec?.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'summarizer',
      'app.kubernetes.io/instance': 'acme',
    });
  });

  it('renders nothing for a disabled service', () => {
    const install = makeInstall({ services: { 'db-proxy': { enabled: false } } });
    expect(renderDeployment(install, 'db-proxy')).toBeNull();
    expect(renderService(install, 'db-proxy')).toBeNull();
    expect(renderServiceAccount(install, 'db-proxy')).toBeNull();
    expect(renderConfigMap(install, 'db-proxy')).toBeNull();
    expect(renderPodDisruptionBudget(install, 'db-proxy')).toBeNull();
    const names = renderDesired({ install, policies }).map((o) => o.metadata?.name);
    expect(names).not.toContain('acme-db-proxy');
  });

  it('asks one function which services run: enabled ones, in apply order, built ones by default', () => {
    expect(enabledServices(makeInstall())).toEqual(
      SERVICE_NAMES.filter((s) => s !== 'license-service'),
    );
    const some = makeInstall({
      services: { 'license-service': { enabled: true }, 'db-proxy': { enabled: false } },
    });
    expect(enabledServices(some)).toEqual(SERVICE_NAMES.filter((s) => s !== 'db-proxy'));
    const rendered = new Set(
      renderDesired({ install: some, policies })
        .filter((o) => o.kind === 'ServiceAccount')
        .map((o) => o.metadata?.name),
    );
    expect(rendered).toEqual(new Set(enabledServices(some).map((s) => `acme-${s}`)));
  });

  it('sets replicas, image, resources and probes of a Deployment', () => {
    const install = makeInstall({
      image: { registry: 'registry.local/pelita', pullSecrets: ['regcred'] },
      services: {
        'core-backend': {
          enabled: true,
          replicas: 3,
          resources: { requests: { cpu: '500m' }, limits: { memory: '1Gi' } },
          env: [{ name: 'FEATURE_X', value: 'on' }],
        },
      },
    });
    const deployment = renderDeployment(install, 'core-backend');
    expect(deployment?.spec?.replicas).toBe(3);
    const container = mainContainer(deployment);
    expect(container.image).toBe('registry.local/pelita/core-backend:1.2.3');
    expect(container.resources).toEqual({
      requests: { cpu: '500m', memory: '128Mi' },
      limits: { memory: '1Gi' },
    });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(container.startupProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.ports).toEqual([{ name: 'http', containerPort: 3000 }]);
    expect(container.env).toContainEqual({ name: 'FEATURE_X', value: 'on' });
    expect(deployment?.spec?.template.spec?.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(deployment?.spec?.template.metadata?.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '3000',
      'prometheus.io/path': '/metrics',
      'pelita.io/config-hash': expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it('runs as non-root with a read-only root filesystem and an emptyDir at /tmp', () => {
    const deployment = renderDeployment(makeInstall(), 'http-proxy');
    const pod = deployment?.spec?.template.spec;
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    const container = mainContainer(deployment);
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(pod?.volumes).toContainEqual({ name: 'tmp', emptyDir: {} });
    expect(pod?.serviceAccountName).toBe('acme-http-proxy');
  });

  it('passes credentials as Secret key references, never as ConfigMap values', () => {
    const install = withDependencies;
    const container = mainContainer(renderDeployment(install, 'user-service'));
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'PGUSER', valueFrom: { secretKeyRef: { name: 'pg', key: 'user' } } },
        { name: 'PGPASSWORD', valueFrom: { secretKeyRef: { name: 'pg', key: 'password' } } },
        { name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'redis', key: 'pw' } } },
        { name: 'S3_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 's3', key: 'id' } } },
        { name: 'S3_SECRET_KEY', valueFrom: { secretKeyRef: { name: 's3', key: 'secret' } } },
        {
          name: 'LICENSE_API_USERNAME',
          valueFrom: { secretKeyRef: { name: 'acme-license', key: 'username' } },
        },
        {
          name: 'LICENSE_API_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'acme-license', key: 'password' } },
        },
      ]),
    );
    // No value is spliced into another: every env entry is a Secret reference.
    expect((container.env ?? []).every((e) => e.valueFrom?.secretKeyRef)).toBe(true);
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'acme-user-service' } }]);

    const config = renderConfigMap(install, 'user-service')?.data;
    expect(config).toMatchObject({
      PORT: '3000',
      DATABASE_URL: 'postgres://pg.db:5432/pelita',
      URL_OPA: 'http://acme-policy-sync:8181',
      POLICY_SYNC_URL: 'http://acme-policy-sync:3666',
      S3_ENDPOINT: 'http://minio:9000',
      S3_BUCKET: 'acme',
      SMTP_HOST: 'mail.example.com',
      SMTP_PORT: '465',
      SMTP_SECURE: 'true',
      LICENSE_API_URL: 'https://license.example.com',
      LICENSE_CLIENT_ID: 'client-1',
      REDIS_URL: 'redis://redis.db:6379/0',
    });
    expect(JSON.stringify(config)).not.toMatch(/password|secret/i);

    const summarizer = renderConfigMap(install, 'summarizer')?.data;
    expect(summarizer).toMatchObject({
      BASE_URL_LOCAL: 'http://llm:8080/v1',
      MODEL_LOCAL: 'gpt-x',
    });
    expect(mainContainer(renderDeployment(install, 'summarizer')).env).toContainEqual({
      name: 'API_KEY_LOCAL',
      valueFrom: { secretKeyRef: { name: 'llm', key: 'key' } },
    });
  });

  it('never loads the platform Secret whole into a pod: only the ConfigMap comes with envFrom', () => {
    const install = makeInstall({ services: allEnabled, platformSecretRef: { name: 'acme-keys' } });
    for (const service of SERVICE_NAMES) {
      expect(mainContainer(renderWorkload(install, service)).envFrom).toEqual([
        { configMapRef: { name: `acme-${service}` } },
      ]);
    }
  });

  it('runs policy-sync on PORT 3666 with an OPA sidecar sharing /share', () => {
    const install = makeInstall();
    const deployment = renderDeployment(install, 'policy-sync');
    const pod = deployment?.spec?.template.spec;
    const [sync, opa] = pod?.containers ?? [];
    expect(renderConfigMap(install, 'policy-sync')?.data).toMatchObject({
      PORT: '3666',
      URL_OPA: 'http://127.0.0.1:8181',
      URL_USER: 'http://acme-user-service:3000',
      POLICY_DATA_FILE: '/share/data.json',
    });
    expect(sync?.ports).toEqual([{ name: 'http', containerPort: 3666 }]);
    expect(sync?.volumeMounts).toContainEqual({ name: 'share', mountPath: '/share' });
    expect(opa?.image).toMatch(/^openpolicyagent\/opa:/);
    expect(opa?.args).toEqual([
      'run',
      '--server',
      '--addr',
      ':8181',
      '--authentication=token',
      '--authorization=basic',
      '--disable-telemetry',
      '--ignore',
      '.*',
      '--ignore',
      '*_test.rego',
      '/share',
      '/policies',
    ]);
    expect(opa?.volumeMounts).toEqual([
      { name: 'share', mountPath: '/share', readOnly: true },
      { name: 'policies', mountPath: '/policies', readOnly: true },
    ]);
    expect(pod?.volumes).toEqual(
      expect.arrayContaining([
        { name: 'share', emptyDir: {} },
        { name: 'policies', configMap: { name: 'acme-policy-sync-policies' } },
      ]),
    );
    expect(renderService(install, 'policy-sync')?.spec?.ports?.map((p) => p.port)).toEqual([
      3666, 8181,
    ]);
  });

  it('builds the policies ConfigMap from the given Rego files, without tests', () => {
    const configMap = renderPoliciesConfigMap(makeInstall(), policies);
    expect(configMap?.metadata?.name).toBe('acme-policy-sync-policies');
    expect(configMap?.data).toEqual({ 'authz.rego': 'package pelita.authz\n' });
    const disabled = makeInstall({
      services: {
        'policy-sync': { enabled: false },
        'user-service': { enabled: false },
        'core-backend': { enabled: false },
      },
    });
    expect(renderPoliciesConfigMap(disabled, policies)).toBeNull();
  });

  it('runs ocr-worker as a StatefulSet with a volume claim template, never a Deployment', () => {
    const install = makeInstall({
      services: { ...allEnabled, 'ocr-worker': { enabled: true, replicas: 3 } },
    });
    expect(renderDeployment(install, 'ocr-worker')).toBeNull();
    const statefulSet = renderStatefulSet(install, 'ocr-worker');
    expect(statefulSet?.kind).toBe('StatefulSet');
    expect(statefulSet?.spec?.replicas).toBe(3);
    expect(statefulSet?.spec?.serviceName).toBe('acme-ocr-worker');
    expect(statefulSet?.spec?.volumeClaimTemplates?.[0]?.metadata?.name).toBe('work');
    const container = mainContainer(statefulSet);
    expect(container.image).toBe('ghcr.io/pelita/ocr-service:1.2.3');
    expect(container.volumeMounts).toContainEqual({ name: 'work', mountPath: '/var/lib/ocr' });
    expect(renderConfigMap(install, 'ocr-worker')?.data).toMatchObject({
      URL_CONVERTER: 'http://acme-office-converter:3000',
      OCR_ENGINE_LOCAL_URL: 'http://acme-ocr-engine:3000',
    });
    const off = makeInstall({
      services: { 'ocr-service': { enabled: false }, 'ocr-worker': { enabled: false } },
    });
    expect(renderStatefulSet(off, 'ocr-worker')).toBeNull();
  });

  it('adds a PodDisruptionBudget only when replicas > 1', () => {
    const install = makeInstall({
      services: { 'http-proxy': { replicas: 2 }, 'db-proxy': { replicas: 1 } },
    });
    expect(renderPodDisruptionBudget(install, 'http-proxy')?.spec).toEqual({
      maxUnavailable: 1,
      selector: {
        matchLabels: {
          'app.kubernetes.io/name': 'http-proxy',
          'app.kubernetes.io/instance': 'acme',
        },
      },
    });
    expect(renderPodDisruptionBudget(install, 'db-proxy')).toBeNull();
  });

  it('renders a ServiceMonitor only when enabled', () => {
    expect(renderServiceMonitor(makeInstall())).toBeNull();
    const monitor = renderServiceMonitor(
      makeInstall({ observability: { serviceMonitor: { enabled: true, interval: '15s' } } }),
    );
    expect(monitor?.apiVersion).toBe('monitoring.coreos.com/v1');
    // The labels the chart's dashboards and alerts select by.
    const relabelings = [
      {
        sourceLabels: ['__meta_kubernetes_service_label_app_kubernetes_io_instance'],
        targetLabel: 'install',
      },
      {
        sourceLabels: ['__meta_kubernetes_service_label_pelita_io_tenant'],
        targetLabel: 'tenant',
      },
      {
        sourceLabels: ['__meta_kubernetes_service_label_app_kubernetes_io_component'],
        targetLabel: 'component',
      },
    ];
    expect(monitor?.spec.endpoints).toEqual([
      { port: 'http', path: '/metrics', interval: '15s', relabelings },
      // OPA's own metrics beside policy-sync (issue 19), with the same labels.
      { port: 'opa', path: '/metrics', interval: '15s', relabelings },
    ]);
    expect(monitor?.spec.selector.matchLabels['app.kubernetes.io/instance']).toBe('acme');
  });

  it('renders the whole desired set, every object owned by the install', () => {
    const objects = renderDesired({ install: makeInstall({ services: allEnabled }), policies });
    const count = (kind: string) => objects.filter((o) => o.kind === kind).length;
    expect(count('Deployment')).toBe(SERVICE_NAMES.length - 1);
    expect(count('StatefulSet')).toBe(1);
    expect(count('Service')).toBe(SERVICE_NAMES.length);
    expect(count('ServiceAccount')).toBe(SERVICE_NAMES.length);
    expect(count('ConfigMap')).toBe(SERVICE_NAMES.length + 1);
    expect(count('PodDisruptionBudget')).toBe(0);
    expect(count('ServiceMonitor')).toBe(0);
    for (const object of objects) {
      expect(object.metadata?.ownerReferences?.[0]).toMatchObject({
        uid: 'uid-1234',
        controller: true,
      });
      expect(object.metadata?.namespace).toBe('tenant-acme');
    }
    const keys = objects.map((o) => `${o.kind}/${o.metadata?.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('renders an Ingress to core-backend only when enabled', () => {
    expect(renderIngress(makeInstall(), 'core-backend')).toBeNull();
    const ingress = renderIngress(
      makeInstall({
        services: { 'core-backend': { enabled: true } },
        ingress: {
          enabled: true,
          host: 'acme.example.com',
          className: 'nginx',
          tlsSecretName: 'acme-tls',
        },
      }),
      'core-backend',
    );
    expect(ingress?.metadata?.name).toBe('acme-core-backend');
    expect(ingress?.spec?.ingressClassName).toBe('nginx');
    expect(ingress?.spec?.tls).toEqual([{ hosts: ['acme.example.com'], secretName: 'acme-tls' }]);
    expect(ingress?.spec?.rules?.[0]?.http?.paths[0]?.backend.service).toEqual({
      name: 'acme-core-backend',
      port: { number: 3000 },
    });
  });

  it('is pure: the same install renders the same objects', () => {
    const install = makeInstall();
    expect(renderDesired({ install, policies })).toEqual(renderDesired({ install, policies }));
  });
});
