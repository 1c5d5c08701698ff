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

  it('checks placement as the apiserver checks a pod, with the messages zod gives', async () => {
    const placed = (name: string, placement: unknown, where: 'install' | 'service' = 'install') =>
      platformInstall(
        namespace,
        name,
        (where === 'install'
          ? { placement }
          : { services: { summarizer: { placement } } }) as never,
      );
    const realNode = {
      nodeSelector: { 'pelita.io/node': 'real', 'kubernetes.io/hostname': 'pelita-node' },
      tolerations: [
        { key: 'pelita.io/node', operator: 'Equal', value: 'real', effect: 'NoSchedule' },
        { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      ],
    };
    expect(await admission(placed('placed', realNode))).toBe('accepted');
    expect(await admission(placed('placed-svc', realNode, 'service'))).toBe('accepted');
    const stored = await readInstall(cluster, namespace, 'placed');
    expect((stored.spec as { placement: unknown }).placement).toEqual(realNode);
    for (const where of ['install', 'service'] as const) {
      expect(
        await admission(placed('bad-key', { nodeSelector: { 'bad key': 'x' } }, where)),
      ).toMatch(/nodeSelector keys must be label keys/);
      expect(await admission(placed('bad-value', { nodeSelector: { a: 'x y' } }, where))).toMatch(
        /nodeSelector.a: Invalid value/,
      );
      expect(await admission(placed('no-key', { tolerations: [{ value: 'x' }] }, where))).toMatch(
        /a toleration without a key needs operator Exists/,
      );
      expect(
        await admission(
          placed(
            'exists-value',
            { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] },
            where,
          ),
        ),
      ).toMatch(/a toleration with operator Exists takes no value/);
      expect(
        await admission(
          placed(
            'seconds',
            { tolerations: [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }] },
            where,
          ),
        ),
      ).toMatch(/tolerationSeconds needs effect NoExecute/);
      expect(
        await admission(placed('effect', { tolerations: [{ key: 'k', effect: 'Never' }] }, where)),
      ).toMatch(/tolerations\[0\].effect: Unsupported value/);
    }
  });

  it("checks each of http-proxy's allowed targets for its shape", async () => {
    const targets = (name: string, allowedTargets: string[]) =>
      platformInstall(namespace, name, { apis: { allowedTargets } });
    const good = [
      '10.20.0.0/16',
      '192.168.1.10',
      'fd00::/8',
      '[::1]',
      'fe80::1%eth0',
      'api.acme.internal',
      'Billing.Svc.',
    ];
    expect(await admission(targets('targets', good))).toBe('accepted');
    const stored = await readInstall(cluster, namespace, 'targets');
    expect((stored.spec as { apis: unknown }).apis).toEqual({ allowedTargets: good });
    for (const bad of [
      '10.0.0.1,0.0.0.0/0',
      'api internal',
      'http://api.internal',
      '',
      '10.0.0.0/8/8',
    ]) {
      expect(`${bad}: ${await admission(targets('bad-target', [bad]))}`).toMatch(
        /allowedTargets\[0\]: Invalid value/,
      );
    }
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
