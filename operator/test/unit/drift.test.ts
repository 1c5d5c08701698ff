import type { V1ConfigMap, V1Service } from '@kubernetes/client-node';
import { needsApply } from '../../src/controller/drift';

const desired: V1Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'acme-db-proxy', namespace: 't', labels: { app: 'db-proxy' } },
  spec: { selector: { app: 'db-proxy' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
};

/** What the API returns: defaults and server fields added, apiVersion/kind absent in lists. */
const live: V1Service = {
  metadata: {
    name: 'acme-db-proxy',
    namespace: 't',
    uid: 'u1',
    resourceVersion: '42',
    labels: { app: 'db-proxy', extra: 'added-by-someone' },
    annotations: { note: 'x' },
  },
  spec: {
    selector: { app: 'db-proxy' },
    clusterIP: '10.0.0.7',
    type: 'ClusterIP',
    ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
  },
  status: { loadBalancer: {} },
};

describe('needsApply', () => {
  it('applies a child the cluster does not have', () => {
    expect(needsApply(desired, undefined)).toBe(true);
  });

  it('skips a child whose every desired field is in place, despite server-added fields', () => {
    expect(needsApply(desired, live)).toBe(false);
  });

  it('applies when a desired value was edited', () => {
    const edited = structuredClone(live);
    edited.spec!.ports![0]!.port = 8080;
    expect(needsApply(desired, edited)).toBe(true);
  });

  it('applies when a desired field was removed', () => {
    const edited = structuredClone(live);
    delete edited.metadata!.labels!.app;
    expect(needsApply(desired, edited)).toBe(true);
  });

  it('applies when a list gained or lost an element', () => {
    const edited = structuredClone(live);
    edited.spec!.ports!.push({ name: 'debug', port: 9229 });
    expect(needsApply(desired, edited)).toBe(true);
  });

  it('compares data values exactly', () => {
    const map: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { A: '1' },
    };
    const liveMap = (data: Record<string, string>): V1ConfigMap => ({
      metadata: { name: 'c' },
      data,
    });
    expect(needsApply(map, liveMap({ A: '1' }))).toBe(false);
    expect(needsApply(map, liveMap({ A: '2' }))).toBe(true);
    expect(needsApply(map, { metadata: { name: 'c' } })).toBe(true);
  });

  it('counts an empty list or map the API dropped as in place', () => {
    const withEmpty: V1Service = {
      ...desired,
      metadata: { ...desired.metadata, annotations: {} },
      spec: { ...desired.spec, externalIPs: [] },
    };
    expect(needsApply(withEmpty, live)).toBe(false);
    const nonEmpty: V1Service = { ...desired, spec: { ...desired.spec, externalIPs: ['1.2.3.4'] } };
    expect(needsApply(nonEmpty, live)).toBe(true);
  });
});
