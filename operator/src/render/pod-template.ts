/** The pod template of a service: probes, security context, settings, volumes and sidecars from the catalog. */
import type {
  V1Container,
  V1EnvVar,
  V1PodSpec,
  V1PodTemplateSpec,
  V1ResourceRequirements,
  V1Volume,
} from '@kubernetes/client-node';
import type { PlatformInstall, ServiceSettings } from '../crd/platform-install';
import { CATALOG, OPA_PORT, type ServiceName } from '../service-catalog';
import { configHash, CONFIG_HASH_ANNOTATION } from './config-hash';
import { childName, labels, serviceImage } from './meta';
import {
  policiesConfigMapName,
  renderPoliciesConfigMap,
  type PolicyFiles,
} from './policies-config-map';
import { platformKeyRef, platformSecretName } from './platform-secret';
import { canonicalQuantity } from './quantity';
import { serviceSettings } from './settings';

const DEFAULT_REQUESTS = { cpu: '50m', memory: '128Mi' };

const containerSecurity = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** Liveness never calls a dependency (`/health` only says the process serves): a slow database must not restart pods. */
const LIVENESS = { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 };
const STARTUP_PERIOD_SECONDS = 5;

/**
 * OPA beside policy-sync. Its port is on the Service (the other services ask it for decisions),
 * so every call is authorised by `policies/system_authz.rego`: only the holder of the install's
 * OPA token (policy-sync, same pod) may write or read `data`; anyone may ask for a decision.
 */
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
      '--authentication=token',
      '--authorization=basic',
      '--disable-telemetry',
      '--ignore',
      '.*',
      '--ignore',
      '*_test.rego',
      '/share',
      '/policies',
    ],
    ports: [{ name: 'opa', containerPort: OPA_PORT }],
    // Read by system.authz through opa.runtime().env; never in a policy or a ConfigMap.
    env: [
      {
        name: 'OPA_TOKEN',
        valueFrom: { secretKeyRef: platformKeyRef(install, 'opa-token') },
      },
    ],
    livenessProbe: { httpGet: { path: '/health', port: 'opa' }, ...LIVENESS },
    readinessProbe: {
      httpGet: { path: '/health?bundles', port: 'opa' },
      periodSeconds: 5,
      timeoutSeconds: 3,
    },
    resources: { requests: DEFAULT_REQUESTS },
    securityContext: containerSecurity,
    volumeMounts: [
      { name: 'share', mountPath: '/share', readOnly: true },
      { name: 'policies', mountPath: '/policies', readOnly: true },
    ],
  };
}

/** The operator's env, each entry replaced by the spec's entry of the same name; the spec's others after. */
function mergeEnv(derived: V1EnvVar[], extra: ServiceSettings['env']): V1EnvVar[] {
  const overrides = new Map(extra.map((e) => [e.name, e]));
  const merged = derived.map((e) => overrides.get(e.name) ?? e);
  const derivedNames = new Set(derived.map((e) => e.name));
  return [...merged, ...extra.filter((e) => !derivedNames.has(e.name))];
}

function canonicalList(list: { cpu?: string; memory?: string }): Record<string, string> {
  return Object.fromEntries(
    Object.entries(list)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => [name, canonicalQuantity(value)]),
  );
}

function resources(settings: ServiceSettings): V1ResourceRequirements {
  const { requests, limits } = settings.resources;
  return {
    requests: canonicalList({ ...DEFAULT_REQUESTS, ...requests }),
    ...(limits ? { limits: canonicalList(limits) } : {}),
  };
}

/**
 * Where the pods run: the service's own `placement` fields, else the install's. Empty ones are
 * left out, as the API stores them (an empty `nodeSelector` would look drifted on every pass).
 */
function placement(
  install: PlatformInstall,
  settings: ServiceSettings,
): Pick<V1PodSpec, 'nodeSelector' | 'tolerations'> {
  const nodeSelector = settings.placement?.nodeSelector ?? install.spec.placement.nodeSelector;
  const tolerations = settings.placement?.tolerations ?? install.spec.placement.tolerations;
  return {
    ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector: { ...nodeSelector } } : {}),
    ...(tolerations.length > 0 ? { tolerations: tolerations.map((t) => ({ ...t })) } : {}),
  };
}

export function podTemplate(
  install: PlatformInstall,
  service: ServiceName,
  policies: PolicyFiles = {},
): V1PodTemplateSpec {
  const entry = CATALOG[service];
  const settings = install.spec.services[service];
  const { config, env } = serviceSettings(install, service);
  const hasOpa = entry.sidecars.includes('opa');

  const main: V1Container = {
    name: service,
    image: serviceImage(install, service),
    imagePullPolicy: install.spec.image.pullPolicy,
    ...(entry.command ? { command: [...entry.command] } : {}),
    ports: [{ name: 'http', containerPort: entry.port }],
    // The platform Secret is not loaded whole: its keys come one by one in `env`, to the
    // services that need them.
    envFrom: [{ configMapRef: { name: childName(install, service) } }],
    env: mergeEnv(env, settings.env),
    // Holds liveness off until the process serves; start-up work (migrations) is `/ready`'s 503.
    startupProbe: {
      httpGet: { path: '/health', port: 'http' },
      periodSeconds: STARTUP_PERIOD_SECONDS,
      timeoutSeconds: 3,
      failureThreshold: Math.ceil(entry.startupSeconds / STARTUP_PERIOD_SECONDS),
    },
    livenessProbe: { httpGet: { path: '/health', port: 'http' }, ...LIVENESS },
    readinessProbe: {
      httpGet: { path: '/ready', port: 'http' },
      periodSeconds: 5,
      timeoutSeconds: entry.readyTimeoutSeconds,
      failureThreshold: 3,
    },
    resources: resources(settings),
    securityContext: containerSecurity,
    volumeMounts: [
      { name: 'tmp', mountPath: '/tmp' },
      ...entry.volumes.map((v) => ({ name: v.name, mountPath: v.mountPath })),
    ],
  };

  const volumes: V1Volume[] = [
    { name: 'tmp', emptyDir: {} },
    // Claims come from the StatefulSet's volume claim templates, not from pod volumes.
    ...entry.volumes
      .filter((v) => v.source === 'emptyDir')
      .map((v) => ({ name: v.name, emptyDir: {} })),
    ...(hasOpa ? [{ name: 'policies', configMap: { name: policiesConfigMapName(install) } }] : []),
  ];

  // Pods reading a key of the platform Secret (the OPA sidecar always does) roll when it changes.
  const readsPlatformSecret =
    hasOpa || env.some((e) => e.valueFrom?.secretKeyRef?.name === platformSecretName(install));
  const hash = configHash({
    config,
    policies: hasOpa ? (renderPoliciesConfigMap(install, policies)?.data ?? {}) : {},
    secretsRevision: install.metadata.annotations?.[SECRETS_REVISION_ANNOTATION],
    platformSecretVersion: readsPlatformSecret ? install.platformKeys?.version : undefined,
  });

  return {
    metadata: {
      labels: labels(install, service),
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(entry.port),
        'prometheus.io/path': '/metrics',
        [CONFIG_HASH_ANNOTATION]: hash,
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
      ...placement(install, settings),
      containers: hasOpa ? [main, opaSidecar(install)] : [main],
      volumes,
    },
  };
}

/**
 * Set on the PlatformInstall to roll every pod after rotating a referenced Secret: the operator
 * cannot see Secrets (it has no access to them), so their changes reach the hash through this.
 */
export const SECRETS_REVISION_ANNOTATION = 'pelita.io/secrets-revision';
