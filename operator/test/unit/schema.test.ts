import { SERVICE_NAMES, parseSpec } from '../../src/crd/platform-install';
import { CATALOG } from '../../src/service-catalog';
import { minimalSpec } from './fixtures';

describe('PlatformInstall spec schema', () => {
  it('applies defaults to a minimal spec', () => {
    const spec = parseSpec(minimalSpec);
    expect(spec.image).toEqual({
      registry: 'ghcr.io/pelita',
      pullPolicy: 'IfNotPresent',
      pullSecrets: [],
      opaImage: expect.stringMatching(/^openpolicyagent\/opa:/),
    });
    for (const name of SERVICE_NAMES) {
      expect(spec.services[name]).toEqual({
        enabled: CATALOG[name].built,
        replicas: 1,
        autoscaling: { enabled: false },
        resources: { requests: {} },
        env: [],
        ...(name === 'ocr-worker'
          ? {
              volume: {
                size: '10Gi',
                retentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
              },
            }
          : {}),
      });
    }
    expect(spec.observability).toEqual({
      serviceMonitor: { enabled: false, interval: '30s' },
      logLevel: 'info',
    });
    expect(spec.ingress).toEqual({ enabled: false });
    expect(spec.dependencies).toEqual({ ...minimalSpec.dependencies, ocrEngines: {} });
  });

  it('keeps given values over defaults', () => {
    const spec = parseSpec({
      ...minimalSpec,
      services: { 'ocr-worker': { replicas: 4 }, 'db-proxy': { enabled: false } },
    });
    expect(spec.services['ocr-worker'].replicas).toBe(4);
    expect(spec.services['ocr-worker'].enabled).toBe(false);
    expect(spec.services['db-proxy'].enabled).toBe(false);
  });

  const cases: Array<[string, unknown, RegExp]> = [
    ['a missing tenant', { ...minimalSpec, tenant: undefined }, /tenant/],
    [
      'an invalid tenant id',
      { ...minimalSpec, tenant: { id: 'ACME_1', displayName: 'x' } },
      /RFC 1123 label[\s\S]*tenant\.id/,
    ],
    [
      'replicas above the bound',
      { ...minimalSpec, services: { summarizer: { replicas: 51 } } },
      /services\.summarizer\.replicas/,
    ],
    [
      'negative replicas',
      { ...minimalSpec, services: { summarizer: { replicas: -1 } } },
      /replicas/,
    ],
    [
      'an unknown pull policy',
      { ...minimalSpec, image: { pullPolicy: 'Sometimes' } },
      /Always[\s\S]*image\.pullPolicy/,
    ],
    [
      'an unknown log level',
      { ...minimalSpec, observability: { logLevel: 'loud' } },
      /observability\.logLevel/,
    ],
    ['a non-semver version', { ...minimalSpec, version: 'latest' }, /semantic version/],
    [
      'a bad quantity',
      {
        ...minimalSpec,
        services: { 'core-backend': { resources: { requests: { cpu: 'lots' } } } },
      },
      /Kubernetes quantity/,
    ],
    [
      'a postgres URL of the wrong scheme',
      { ...minimalSpec, dependencies: { postgres: { url: 'mysql://db' } } },
      /postgres:\/\/ URL/,
    ],
    [
      'an ingress without host',
      { ...minimalSpec, ingress: { enabled: true } },
      /ingress\.host is required/,
    ],
    [
      'a secret ref without key',
      {
        ...minimalSpec,
        dependencies: { llm: { url: 'http://llm', model: 'm', apiKeySecretRef: { name: 'llm' } } },
      },
      /apiKeySecretRef\.key/,
    ],
    [
      'a bad env var name',
      { ...minimalSpec, services: { 'http-proxy': { env: [{ name: '1X', value: 'v' }] } } },
      /environment variable name/,
    ],
  ];
  it.each(cases)('rejects %s with a useful message', (_label, raw, message) => {
    expect(() => parseSpec(raw)).toThrow(message);
  });
});
