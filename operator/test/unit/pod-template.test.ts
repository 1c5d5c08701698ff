/** What makes changes reach the pods, and how pods are probed and sized. */
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import {
  CONFIG_HASH_ANNOTATION,
  renderDeployment,
  renderDesired,
  renderPodDisruptionBudget,
  renderStatefulSet,
  SECRETS_REVISION_ANNOTATION,
} from '../../src/render';
import { SERVICE_NAMES } from '../../src/service-catalog';
import { allEnabled, makeInstall, minimalSpec } from './fixtures';

const policies = { 'authz.rego': 'package pelita.authz\n' };

function hashOf(workload: V1Deployment | V1StatefulSet | null): string {
  const hash = workload?.spec?.template.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  if (!hash) throw new Error('no config hash');
  return hash;
}

function container(workload: V1Deployment | V1StatefulSet | null) {
  const main = workload?.spec?.template.spec?.containers[0];
  if (!main) throw new Error('no container');
  return main;
}

describe('the pod template', () => {
  it('changes its config hash when a ConfigMap-only setting changes', () => {
    const before = renderDeployment(makeInstall(), 'summarizer', policies);
    const same = renderDeployment(makeInstall(), 'summarizer', policies);
    const louder = renderDeployment(
      makeInstall({ observability: { logLevel: 'debug' } }),
      'summarizer',
      policies,
    );
    expect(hashOf(same)).toBe(hashOf(before));
    expect(hashOf(louder)).not.toBe(hashOf(before));
    // The template differs only by the hash: the ConfigMap itself is not in it.
    expect(container(louder)).toEqual(container(before));
  });

  it('changes the policy-sync hash when the policies change, and no other', () => {
    const install = makeInstall();
    const edited = { 'authz.rego': 'package pelita.authz\ndefault allow := false\n' };
    expect(hashOf(renderDeployment(install, 'policy-sync', edited))).not.toBe(
      hashOf(renderDeployment(install, 'policy-sync', policies)),
    );
    expect(hashOf(renderDeployment(install, 'user-service', edited))).toBe(
      hashOf(renderDeployment(install, 'user-service', policies)),
    );
  });

  it('changes every hash when the install is annotated with a new secrets revision', () => {
    const plain = makeInstall();
    const rotated = makeInstall({}, { [SECRETS_REVISION_ANNOTATION]: '2026-11-24' });
    for (const service of ['user-service', 'summarizer', 'http-proxy'] as const) {
      expect(hashOf(renderDeployment(rotated, service, policies))).not.toBe(
        hashOf(renderDeployment(plain, service, policies)),
      );
    }
  });

  it('merges extra env by name: a spec entry replaces the derived one, no duplicate', () => {
    const install = makeInstall({
      dependencies: {
        ...minimalSpec.dependencies,
        postgres: {
          url: 'postgres://pg:5432/pelita',
          passwordSecretRef: { name: 'pg', key: 'pw' },
        },
        redis: { url: 'redis://redis:6379/0' },
        llm: { url: 'http://llm/v1', model: 'm' },
      },
      services: {
        'user-service': {
          env: [
            { name: 'PGPASSWORD', value: 'from-spec' },
            { name: 'FEATURE_X', value: 'on' },
          ],
        },
      },
    });
    const env = container(renderDeployment(install, 'user-service')).env ?? [];
    const names = env.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    expect(env.filter((e) => e.name === 'PGPASSWORD')).toEqual([
      { name: 'PGPASSWORD', value: 'from-spec' },
    ]);
    expect(env[env.length - 1]).toEqual({ name: 'FEATURE_X', value: 'on' });
  });

  it('renders quantities the way the apiserver stores them', () => {
    const install = makeInstall({
      services: {
        summarizer: {
          resources: { requests: { cpu: '0.5', memory: '1024Mi' }, limits: { cpu: '2000m' } },
        },
      },
    });
    expect(container(renderDeployment(install, 'summarizer')).resources).toEqual({
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '2' },
    });
  });

  it('probes: startup on /health, liveness never slower than 3 s, readiness above the check time-outs', () => {
    const install = makeInstall({ services: allEnabled });
    for (const object of renderDesired({ install, policies })) {
      if (object.kind !== 'Deployment' && object.kind !== 'StatefulSet') continue;
      const main = container(object);
      expect(main.startupProbe?.httpGet?.path).toBe('/health');
      expect(main.livenessProbe?.httpGet?.path).toBe('/health');
      expect(main.livenessProbe?.timeoutSeconds).toBe(3);
      // The kit checks dependencies with a 3 s time-out: the probe must wait longer.
      expect(main.readinessProbe?.timeoutSeconds).toBeGreaterThan(3);
    }
    // The summarizer lists the model server's models with a 5 s time-out.
    expect(container(renderDeployment(install, 'summarizer')).readinessProbe?.timeoutSeconds).toBe(
      6,
    );
    // The user service may migrate for minutes before it is ready; startup covers it.
    const user = container(renderDeployment(install, 'user-service')).startupProbe;
    expect((user?.periodSeconds ?? 0) * (user?.failureThreshold ?? 0)).toBeGreaterThanOrEqual(300);
  });

  it('leaves replicas out when an autoscaler owns them', () => {
    const install = makeInstall({
      services: {
        'http-proxy': { replicas: 3, autoscaling: { enabled: true } },
        'db-proxy': { replicas: 3 },
      },
    });
    expect(renderDeployment(install, 'http-proxy')?.spec).not.toHaveProperty('replicas');
    expect(renderDeployment(install, 'db-proxy')?.spec?.replicas).toBe(3);
    // The autoscaler may run more than one pod: the disruption budget stays.
    const autoscaledOne = makeInstall({
      services: { 'http-proxy': { replicas: 1, autoscaling: { enabled: true } } },
    });
    expect(renderPodDisruptionBudget(autoscaledOne, 'http-proxy')).not.toBeNull();
  });

  it('gives the ocr-worker volume the configured size, class and retention policy', () => {
    const install = makeInstall({
      services: {
        ...allEnabled,
        'ocr-worker': {
          enabled: true,
          volume: {
            size: '20480Mi',
            storageClassName: 'fast',
            retentionPolicy: { whenDeleted: 'Retain' },
          },
        },
      },
    });
    const spec = renderStatefulSet(install, 'ocr-worker')?.spec;
    expect(spec?.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Delete',
    });
    expect(spec?.volumeClaimTemplates?.[0]?.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast',
      resources: { requests: { storage: '20Gi' } },
    });
  });

  it('renders the services not built yet (license-service) only when enabled', () => {
    const kinds = (services: typeof allEnabled | undefined) =>
      renderDesired({ install: makeInstall(services ? { services } : {}), policies })
        .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
        .map((o) => o.metadata?.labels?.['app.kubernetes.io/name']);
    expect(kinds(undefined)).toEqual([
      'http-proxy',
      'db-proxy',
      'user-service',
      'policy-sync',
      'core-backend',
      'ocr-service',
      'ocr-worker',
      'office-converter',
      'ocr-engine',
      'summarizer',
    ]);
    expect(kinds(allEnabled)).toEqual([...SERVICE_NAMES]);
  });
});
