/** The pod template of a service: probes, security context, settings, and policy-sync's OPA sidecar. */
import type { V1Container, V1PodTemplateSpec, V1Volume } from '@kubernetes/client-node';
import type { PlatformInstall, ServiceName } from '../crd/platform-install';
import { childName, labels, serviceImage } from './meta';
import { OPA_PORT, serviceSettings, servicePort } from './settings';
import { policiesConfigMapName } from './policies-config-map';

const DEFAULT_REQUESTS = { cpu: '50m', memory: '128Mi' };

const containerSecurity = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

function opaSidecar(install: PlatformInstall): V1Container {
  return {
    name: 'opa',
    image: install.spec.image.opaImage,
    imagePullPolicy: install.spec.image.pullPolicy,
    args: [
      'run',
      '--server',
      '--addr',
      `:${OPA_PORT}`,
      '--ignore',
      '.*',
      '--ignore',
      '*_test.rego',
      '/share',
      '/policies',
    ],
    ports: [{ name: 'opa', containerPort: OPA_PORT }],
    livenessProbe: { httpGet: { path: '/health', port: 'opa' }, periodSeconds: 10 },
    readinessProbe: { httpGet: { path: '/health?bundles', port: 'opa' }, periodSeconds: 5 },
    resources: { requests: DEFAULT_REQUESTS },
    securityContext: containerSecurity,
    volumeMounts: [
      { name: 'share', mountPath: '/share', readOnly: true },
      { name: 'policies', mountPath: '/policies', readOnly: true },
    ],
  };
}

export function podTemplate(install: PlatformInstall, service: ServiceName): V1PodTemplateSpec {
  const settings = install.spec.services[service];
  const { env } = serviceSettings(install, service);
  const port = servicePort(service);
  const isPolicySync = service === 'policy-sync';
  const requests = { ...DEFAULT_REQUESTS, ...settings.resources.requests };

  const main: V1Container = {
    name: service,
    image: serviceImage(install, service),
    imagePullPolicy: install.spec.image.pullPolicy,
    ...(service === 'ocr-worker' ? { command: ['node', 'dist/worker.js'] } : {}),
    ports: [{ name: 'http', containerPort: port }],
    envFrom: [
      { configMapRef: { name: childName(install, service) } },
      ...(install.spec.platformSecretRef
        ? [{ secretRef: { name: install.spec.platformSecretRef.name } }]
        : []),
    ],
    env: [...env, ...settings.env],
    livenessProbe: {
      httpGet: { path: '/health', port: 'http' },
      periodSeconds: 10,
      failureThreshold: 3,
    },
    readinessProbe: {
      httpGet: { path: '/ready', port: 'http' },
      periodSeconds: 5,
      failureThreshold: 3,
    },
    resources: {
      requests,
      ...(settings.resources.limits ? { limits: settings.resources.limits } : {}),
    },
    securityContext: containerSecurity,
    volumeMounts: [
      { name: 'tmp', mountPath: '/tmp' },
      ...(isPolicySync ? [{ name: 'share', mountPath: '/share' }] : []),
      ...(service === 'ocr-worker' ? [{ name: 'work', mountPath: '/var/lib/ocr' }] : []),
    ],
  };

  const volumes: V1Volume[] = [{ name: 'tmp', emptyDir: {} }];
  if (isPolicySync) {
    volumes.push(
      { name: 'share', emptyDir: {} },
      { name: 'policies', configMap: { name: policiesConfigMapName(install) } },
    );
  }

  return {
    metadata: {
      labels: labels(install, service),
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      },
    },
    spec: {
      serviceAccountName: childName(install, service),
      automountServiceAccountToken: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      imagePullSecrets: install.spec.image.pullSecrets.map((name) => ({ name })),
      containers: isPolicySync ? [main, opaSidecar(install)] : [main],
      volumes,
    },
  };
}
