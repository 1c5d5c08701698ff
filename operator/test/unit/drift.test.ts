import type { V1ConfigMap, V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import { DESIRED_HASH_ANNOTATION, needsApply, withDesiredHash } from '../../src/controller/drift';

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

/** What the API holds after applying `desired`: the object plus fields the server adds. */
function applied<T extends V1ConfigMap | V1Deployment | V1Ingress>(desired: T): T {
  const live = structuredClone(desired);
  delete live.apiVersion;
  delete live.kind;
  live.metadata = { ...live.metadata, uid: 'u1', resourceVersion: '7' };
  return live;
}

describe('needsApply with the desired-object hash', () => {
  const configMap = (data: Record<string, string>): V1ConfigMap =>
    withDesiredHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });

  it('stamps a hash that depends on the content, not on key order', () => {
    const a = configMap({ A: '1', B: '2' });
    const b = configMap({ B: '2', A: '1' });
    const hash = a.metadata?.annotations?.[DESIRED_HASH_ANNOTATION];
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.metadata?.annotations?.[DESIRED_HASH_ANNOTATION]).toBe(hash);
    expect(configMap({ A: '1' }).metadata?.annotations?.[DESIRED_HASH_ANNOTATION]).not.toBe(hash);
  });

  it('skips a child applied from the same desired object', () => {
    const desired = configMap({ A: '1', B: '2' });
    expect(needsApply(desired, applied(desired))).toBe(false);
  });

  it('applies when a ConfigMap key was removed from the desired object', () => {
    const live = applied(configMap({ A: '1', B: '2' }));
    expect(needsApply(configMap({ A: '1' }), live)).toBe(true);
  });

  it('applies when resource limits were removed from the desired object', () => {
    const deployment = (limits?: Record<string, string>): V1Deployment =>
      withDesiredHash({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: {
          selector: {},
          template: {
            spec: {
              containers: [
                {
                  name: 'app',
                  resources: { requests: { cpu: '100m' }, ...(limits && { limits }) },
                },
              ],
            },
          },
        },
      });
    const live = applied(deployment({ cpu: '1', memory: '512Mi' }));
    expect(needsApply(deployment(), live)).toBe(true);
  });

  it('applies when ingress TLS was removed from the desired object', () => {
    const ingress = (tls: boolean): V1Ingress =>
      withDesiredHash({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'i' },
        spec: {
          rules: [{ host: 'chat.example.com' }],
          ...(tls && { tls: [{ hosts: ['chat.example.com'], secretName: 'chat-tls' }] }),
        },
      });
    const live = applied(ingress(true));
    expect(needsApply(ingress(false), live)).toBe(true);
  });

  it('applies when someone else changed or dropped the hash annotation', () => {
    const desired = configMap({ A: '1' });
    const live = applied(desired);
    delete live.metadata!.annotations![DESIRED_HASH_ANNOTATION];
    expect(needsApply(desired, live)).toBe(true);
  });

  it('still applies when a field it sets was edited although the hash matches', () => {
    const desired = configMap({ A: '1' });
    const live = applied(desired);
    live.data!.A = 'edited';
    expect(needsApply(desired, live)).toBe(true);
  });
});
