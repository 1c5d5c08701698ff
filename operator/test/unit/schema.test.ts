import { SERVICE_NAMES, parseSpec } from '../../src/crd/platform-install';
import { CATALOG, DEFAULT_OPA_IMAGE, DEFAULT_REGISTRY } from '../../src/service-catalog';
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
      services: { 'core-backend': { replicas: 4 }, 'db-proxy': { enabled: false } },
    });
    expect(spec.services['core-backend'].replicas).toBe(4);
    expect(spec.services['license-service'].enabled).toBe(false);
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
      'a PostgreSQL pool of one connection',
      {
        ...minimalSpec,
        dependencies: {
          ...minimalSpec.dependencies,
          postgres: { url: 'postgres://pg.db:5432/pelita', pool: { max: 1 } },
        },
      },
      /dependencies\.postgres\.pool\.max/,
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
  const { dependencies: _deps, ...noDependencies } = minimalSpec;
  cases.push(
    [
      'user-service without postgres and redis',
      { ...noDependencies, dependencies: { llm: { url: 'http://llm', model: 'm' } } },
      /user-service needs dependencies\.postgres and dependencies\.redis/,
    ],
    [
      'summarizer without an llm',
      {
        ...noDependencies,
        dependencies: { postgres: { url: 'postgres://pg/db' }, redis: { url: 'redis://r' } },
      },
      /summarizer needs dependencies\.llm/,
    ],
    [
      'user-service without policy-sync',
      { ...minimalSpec, services: { 'policy-sync': { enabled: false } } },
      /user-service needs policy-sync/,
    ],
    [
      'license-service enabled without postgres',
      {
        ...noDependencies,
        dependencies: { llm: { url: 'http://llm', model: 'm' } },
        services: {
          'user-service': { enabled: false },
          'policy-sync': { enabled: false },
          'license-service': { enabled: true },
        },
      },
      /license-service needs dependencies\.postgres/,
    ],
    [
      'the OCR services without OpenSearch and S3',
      { ...minimalSpec, dependencies: { ...minimalSpec.dependencies, opensearch: undefined } },
      /ocr-service needs dependencies\.redis and dependencies\.opensearch and dependencies\.s3/,
    ],
    [
      'the OCR worker without S3',
      { ...minimalSpec, dependencies: { ...minimalSpec.dependencies, s3: undefined } },
      /ocr-worker needs dependencies\.redis and dependencies\.opensearch and dependencies\.s3/,
    ],
    [
      'the OCR worker without the office converter',
      { ...minimalSpec, services: { 'office-converter': { enabled: false } } },
      /ocr-worker needs office-converter/,
    ],
    [
      'the OCR API without a worker',
      { ...minimalSpec, services: { 'ocr-worker': { enabled: false } } },
      /ocr-service needs ocr-worker/,
    ],
    [
      'two env entries of one name',
      {
        ...minimalSpec,
        services: {
          'http-proxy': {
            env: [
              { name: 'A', value: '1' },
              { name: 'A', value: '2' },
            ],
          },
        },
      },
      /env names must be unique/,
    ],
  );

  it('accepts a spec without dependencies when the services needing them are off', () => {
    const spec = parseSpec({
      ...noDependencies,
      services: {
        'user-service': { enabled: false },
        'policy-sync': { enabled: false },
        summarizer: { enabled: false },
        'ocr-service': { enabled: false },
        'ocr-worker': { enabled: false },
        'core-backend': { enabled: false },
      },
    });
    expect(spec.services['http-proxy'].enabled).toBe(true);
  });

  it('resolves the image defaults in the operator', () => {
    expect(parseSpec(minimalSpec).image).toMatchObject({
      registry: DEFAULT_REGISTRY,
      opaImage: DEFAULT_OPA_IMAGE,
    });
    const pinned = parseSpec({
      ...minimalSpec,
      image: { registry: 'r.local/p', opaImage: 'opa:1' },
    });
    expect(pinned.image).toMatchObject({ registry: 'r.local/p', opaImage: 'opa:1' });
  });

  it.each(cases)('rejects %s with a useful message', (_label, raw, message) => {
    expect(() => parseSpec(raw)).toThrow(message);
  });
});
