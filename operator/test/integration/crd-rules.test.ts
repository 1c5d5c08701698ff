/**
 * The CRD's cross-field CEL rules and list-map env on the test environment's real apiserver: what
 * zod checks in the operator, the apiserver refuses at admission, with the same messages.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node';
import {
  apply,
  connect,
  createNamespace,
  deleteNamespace,
  installCrd,
  platformInstall,
  readInstall,
  TEST_DEPENDENCIES,
} from './support';

const cluster = connect();
let namespace: string;

beforeAll(async () => {
  await installCrd(cluster);
  namespace = await createNamespace(cluster, 'op-crd-rules');
});

afterAll(async () => {
  await deleteNamespace(cluster, namespace);
});

/** The apiserver's answer to applying (or creating) `object`: 'accepted', or the 422 body. */
async function admission(
  object: KubernetesObject,
  verb: 'apply' | 'create' = 'apply',
): Promise<string> {
  try {
    if (verb === 'apply') await apply(cluster, object);
    else await cluster.objects.create(object);
    return 'accepted';
  } catch (err) {
    if (err instanceof ApiException && err.code === 422) return String(err.body);
    throw err;
  }
}

describe('the PlatformInstall CRD', () => {
  it('stores no operator-resolved default: image and enabled stay unset', async () => {
    await apply(cluster, platformInstall(namespace, 'defaults', { services: {} }));
    const stored = await readInstall(cluster, namespace, 'defaults');
    const spec = stored.spec as {
      image?: Record<string, unknown>;
      services: Record<string, Record<string, unknown>>;
    };
    expect(spec.image ?? {}).not.toHaveProperty('registry');
    expect(spec.image ?? {}).not.toHaveProperty('opaImage');
    expect(spec.services.summarizer).not.toHaveProperty('enabled');
    expect(spec.services.summarizer).toHaveProperty('replicas', 1);
  });

  it('refuses services enabled without what they need', async () => {
    const { llm: _llm, ...noLlm } = TEST_DEPENDENCIES;
    expect(await admission(platformInstall(namespace, 'no-llm', { dependencies: noLlm }))).toMatch(
      /summarizer needs dependencies\.llm/,
    );
    const { postgres: _pg, ...noPostgres } = TEST_DEPENDENCIES;
    expect(
      await admission(platformInstall(namespace, 'no-pg', { dependencies: noPostgres })),
    ).toMatch(/user-service needs dependencies\.postgres and dependencies\.redis/);
    expect(
      await admission(
        platformInstall(namespace, 'no-sync', { services: { 'policy-sync': { enabled: false } } }),
      ),
    ).toMatch(/user-service needs policy-sync/);
    const { s3: _s3, ...noS3 } = TEST_DEPENDENCIES;
    const ocr = { 'ocr-service': { enabled: true }, 'ocr-worker': { enabled: true } };
    expect(
      await admission(
        platformInstall(namespace, 'no-s3', {
          dependencies: noS3,
          services: { ...ocr, 'office-converter': { enabled: true } },
        }),
      ),
    ).toMatch(
      /ocr-worker needs dependencies\.redis and dependencies\.opensearch and dependencies\.s3/,
    );
    expect(await admission(platformInstall(namespace, 'no-converter', { services: ocr }))).toMatch(
      /ocr-worker needs office-converter/,
    );
    expect(
      await admission(
        platformInstall(namespace, 'no-worker', { services: { 'ocr-service': { enabled: true } } }),
      ),
    ).toMatch(/ocr-service needs ocr-worker/);
    // Off, they need nothing.
    expect(
      await admission(
        platformInstall(namespace, 'bare', {
          dependencies: {},
          services: {
            'user-service': { enabled: false },
            'policy-sync': { enabled: false },
            summarizer: { enabled: false },
          },
        }),
      ),
    ).toBe('accepted');
  });

  it('refuses two env entries of one name', async () => {
    const env = [
      { name: 'A', value: '1' },
      { name: 'A', value: '2' },
    ];
    expect(
      await admission(
        platformInstall(namespace, 'dup-env', { services: { 'http-proxy': { env } } }),
        // Server-side apply cannot even build its typed patch from such a list (a 500 naming the
        // duplicate key); a create shows the schema's own refusal.
        'create',
      ),
    ).toMatch(/env\[1\]: Duplicate value/);
  });

  it('keeps tenant.id immutable', async () => {
    const install = platformInstall(namespace, 'tenant');
    await apply(cluster, install);
    const changed = {
      ...install,
      spec: { ...install.spec, tenant: { id: 'other', displayName: 'x' } },
    };
    expect(await admission(changed)).toMatch(/tenant\.id is immutable/);
  });

  it('keeps the ocr-worker volume while the worker runs, and lets it change while it is off', async () => {
    const worker = (enabled: boolean, size: string) =>
      platformInstall(namespace, 'worker', {
        services: {
          'ocr-worker': { enabled, volume: { size } },
          'office-converter': { enabled: true },
        },
      });
    await apply(cluster, worker(true, '10Gi'));
    expect(await admission(worker(true, '20Gi'))).toMatch(
      /services\.ocr-worker\.volume cannot change while ocr-worker runs/,
    );
    expect(await admission(worker(false, '10Gi'))).toBe('accepted');
    expect(await admission(worker(false, '20Gi'))).toBe('accepted');
    expect(await admission(worker(true, '20Gi'))).toBe('accepted');
  });
});
