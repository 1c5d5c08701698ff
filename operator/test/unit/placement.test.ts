/**
 * Where the install's pods run (`spec.placement`, `services.<service>.placement`) and which
 * non-public upstreams its http-proxy may reach (`spec.apis.allowedTargets`).
 */
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';
import { parseAllowedTargets } from '@pelita/kit';
import { parseSpec } from '../../src/crd/platform-install';
import { renderConfigMap, renderDesired, renderWorkload } from '../../src/render';
import { SERVICE_NAMES } from '../../src/service-catalog';
import { allEnabled, makeInstall, minimalSpec } from './fixtures';

const realNode = {
  nodeSelector: { 'pelita.io/node': 'real' },
  tolerations: [
    {
      key: 'pelita.io/node',
      operator: 'Equal' as const,
      value: 'real',
      effect: 'NoSchedule' as const,
    },
  ],
};

function podSpec(workload: V1Deployment | V1StatefulSet | null) {
  const spec = workload?.spec?.template.spec;
  if (!spec) throw new Error('no pod spec');
  return spec;
}

describe('spec.placement', () => {
  it('defaults to nothing, and no workload then carries a nodeSelector or tolerations', () => {
    const install = makeInstall({ services: allEnabled });
    expect(install.spec.placement).toEqual({ nodeSelector: {}, tolerations: [] });
    for (const service of SERVICE_NAMES) {
      const spec = podSpec(renderWorkload(install, service));
      // Left out rather than empty: the API stores neither, so an empty one would look drifted.
      expect(spec).not.toHaveProperty('nodeSelector');
      expect(spec).not.toHaveProperty('tolerations');
    }
  });

  it('goes to every workload: each Deployment, the OCR worker StatefulSet, the converter', () => {
    const install = makeInstall({ services: allEnabled, placement: realNode });
    const workloads = renderDesired({ install, policies: {} }).filter(
      (o): o is V1Deployment | V1StatefulSet => o.kind === 'Deployment' || o.kind === 'StatefulSet',
    );
    expect(workloads).toHaveLength(SERVICE_NAMES.length);
    expect(workloads.map((w) => w.kind)).toContain('StatefulSet');
    for (const workload of workloads) {
      expect({ name: workload.metadata?.name, ...podSpec(workload) }).toMatchObject({
        name: workload.metadata?.name,
        nodeSelector: { 'pelita.io/node': 'real' },
        tolerations: realNode.tolerations,
      });
    }
    expect(podSpec(renderWorkload(install, 'office-converter')).nodeSelector).toEqual(
      realNode.nodeSelector,
    );
  });

  it("is replaced field by field by a service's own placement", () => {
    const install = makeInstall({
      placement: realNode,
      services: {
        // Its own nodes, the install's tolerations.
        'ocr-worker': { placement: { nodeSelector: { 'pelita.io/pool': 'ocr' } } },
        // No tolerations at all, the install's nodeSelector.
        summarizer: { placement: { tolerations: [] } },
        // Anywhere.
        'db-proxy': { placement: { nodeSelector: {}, tolerations: [] } },
      },
    });
    const worker = podSpec(renderWorkload(install, 'ocr-worker'));
    expect(worker.nodeSelector).toEqual({ 'pelita.io/pool': 'ocr' });
    expect(worker.tolerations).toEqual(realNode.tolerations);
    const summarizer = podSpec(renderWorkload(install, 'summarizer'));
    expect(summarizer.nodeSelector).toEqual(realNode.nodeSelector);
    expect(summarizer).not.toHaveProperty('tolerations');
    const proxy = podSpec(renderWorkload(install, 'db-proxy'));
    expect(proxy).not.toHaveProperty('nodeSelector');
    expect(proxy).not.toHaveProperty('tolerations');
    expect(podSpec(renderWorkload(install, 'http-proxy'))).toMatchObject(realNode);
  });

  it('renders a toleration as given, optional fields left out', () => {
    const install = makeInstall({
      placement: {
        tolerations: [
          { operator: 'Exists' },
          {
            key: 'node.kubernetes.io/unreachable',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 30,
          },
        ],
      },
    });
    expect(podSpec(renderWorkload(install, 'http-proxy')).tolerations).toEqual([
      { operator: 'Exists' },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 30,
      },
    ]);
  });

  const invalid: Array<[string, unknown, RegExp]> = [
    [
      'a nodeSelector key that is no label key',
      { nodeSelector: { 'bad key': 'x' } },
      /nodeSelector key "bad key" must be a label key/,
    ],
    ['a nodeSelector value that is no label value', { nodeSelector: { a: 'x y' } }, /label value/],
    [
      'a toleration without key and operator Exists',
      { tolerations: [{ value: 'x', effect: 'NoSchedule' }] },
      /without a key needs operator Exists/,
    ],
    [
      'a value with operator Exists',
      { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] },
      /operator Exists takes no value/,
    ],
    [
      'tolerationSeconds without NoExecute',
      { tolerations: [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }] },
      /tolerationSeconds needs effect NoExecute/,
    ],
    ['an unknown effect', { tolerations: [{ key: 'k', effect: 'Never' }] }, /effect/],
  ];
  it.each(invalid)('refuses %s', (_label, placement, message) => {
    expect(() => parseSpec({ ...minimalSpec, placement })).toThrow(message);
    // The same checks hold for a service's own placement.
    expect(() => parseSpec({ ...minimalSpec, services: { summarizer: { placement } } })).toThrow(
      message,
    );
  });
});

describe('spec.apis.allowedTargets', () => {
  const targets = [
    '10.20.0.0/16',
    '192.168.1.10',
    'fd00::/8',
    '[::1]',
    'api.acme.internal',
    'Billing.Svc.',
  ];

  it("becomes http-proxy's ALLOWED_TARGETS, and nobody else's", () => {
    const install = makeInstall({ services: allEnabled, apis: { allowedTargets: targets } });
    const rendered = renderConfigMap(install, 'http-proxy')?.data?.ALLOWED_TARGETS;
    expect(rendered).toBe(targets.join(','));
    // As the service reads it: every entry parses.
    expect(parseAllowedTargets(rendered!.split(',')).names).toEqual(
      new Set(['api.acme.internal', 'billing.svc']),
    );
    for (const service of SERVICE_NAMES.filter((s) => s !== 'http-proxy')) {
      expect(renderConfigMap(install, service)?.data ?? {}).not.toHaveProperty('ALLOWED_TARGETS');
    }
  });

  it('is left out when empty (public addresses only), the default', () => {
    const install = makeInstall();
    expect(install.spec.apis).toEqual({ allowedTargets: [] });
    expect(renderConfigMap(install, 'http-proxy')?.data).not.toHaveProperty('ALLOWED_TARGETS');
  });

  it.each([
    ['a comma, which would smuggle in a second entry', '10.0.0.1,0.0.0.0/0', /without commas/],
    ['a space', 'api internal', /without commas/],
    ['a prefix beyond the address size', '10.0.0.0/33', /neither a CIDR range/],
    ['a URL instead of a host', 'http://api.internal', /without commas|neither a CIDR range/],
    ['an empty entry', '', /without commas/],
  ])('refuses %s', (_label, entry, message) => {
    expect(() => parseSpec({ ...minimalSpec, apis: { allowedTargets: [entry] } })).toThrow(message);
  });
});
