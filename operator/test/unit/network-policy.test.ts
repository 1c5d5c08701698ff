/**
 * The install's NetworkPolicies, rule by rule, against a table of who calls whom written out by
 * hand: a service is reachable from exactly the install's services that call it, on the port
 * they call, plus Prometheus on its http port and, for what the Ingress exposes (core-backend),
 * the ingress controller.
 */
import type { V1Ingress } from '@kubernetes/client-node';
import { renderDesired } from '../../src/render';
import {
  callGraph,
  renderNetworkPolicies,
  type NetworkPolicy,
} from '../../src/render/network-policy';
import { SERVICE_NAMES, type ServiceName } from '../../src/service-catalog';
import { toClientModel } from '../../src/kube/client';
import { allEnabled, makeInstall } from './fixtures';

/** target → port → callers, for an install with every service on and the in-install OCR engine. */
const WHO_CALLS_WHOM: Record<ServiceName, Record<number, ServiceName[]>> = {
  'http-proxy': { 3000: ['core-backend'] },
  'db-proxy': { 3000: ['core-backend'] },
  'user-service': { 3000: ['core-backend', 'policy-sync'] },
  'policy-sync': { 3666: ['user-service'], 8181: ['core-backend', 'user-service'] },
  'license-service': {},
  'core-backend': { 3000: ['user-service'] },
  'ocr-service': { 3000: ['core-backend'] },
  'ocr-worker': {},
  'office-converter': { 3000: ['ocr-worker'] },
  'ocr-engine': { 3000: ['ocr-worker'] },
  summarizer: { 3000: ['core-backend', 'ocr-worker'] },
};

const install = makeInstall({ services: allEnabled });
const policies = renderNetworkPolicies(install);

function policyOf(list: NetworkPolicy[], service: string): NetworkPolicy {
  const found = list.find((p) => p.metadata?.name === `acme-${service}`);
  if (!found) throw new Error(`no NetworkPolicy for ${service}`);
  return found;
}

/** The rules letting in pods of this install: port → the services named by their selectors. */
function internalRules(policy: NetworkPolicy): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const rule of policy.spec.ingress ?? []) {
    const internal = rule.from.filter((peer) => !peer.namespaceSelector);
    if (internal.length === 0) continue;
    expect(internal.length).toBe(rule.from.length); // never mixed with outside peers
    const [port] = rule.ports;
    out[Number(port?.port)] = internal.map((peer) => {
      expect(peer.podSelector?.matchLabels?.['app.kubernetes.io/instance']).toBe('acme');
      return peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] ?? '';
    });
  }
  return out;
}

function outsideRules(policy: NetworkPolicy) {
  return (policy.spec.ingress ?? []).filter((rule) => rule.from.some((p) => p.namespaceSelector));
}

describe('NetworkPolicies', () => {
  it('denies all ingress to the install pods by default', () => {
    const [deny] = policies;
    expect(deny?.metadata?.name).toBe('acme-default-deny-ingress');
    expect(deny?.spec).toEqual({
      podSelector: {
        matchLabels: {
          'app.kubernetes.io/instance': 'acme',
          'app.kubernetes.io/managed-by': 'pelita-operator',
        },
      },
      policyTypes: ['Ingress'],
    });
  });

  it.each(SERVICE_NAMES)('lets into %s exactly the services that call it, on their port', (s) => {
    const policy = policyOf(policies, s);
    expect(policy.spec.podSelector.matchLabels).toEqual({
      'app.kubernetes.io/name': s,
      'app.kubernetes.io/instance': 'acme',
    });
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(internalRules(policy)).toEqual(WHO_CALLS_WHOM[s]);
  });

  it('derives the same graph as the table', () => {
    const derived: Record<string, Record<number, string[]>> = {};
    for (const s of SERVICE_NAMES) derived[s] = {};
    for (const { caller, target, port } of callGraph(install)) {
      const byPort = (derived[target] ??= {});
      byPort[port] = [...(byPort[port] ?? []), caller].sort();
    }
    expect(derived).toEqual(WHO_CALLS_WHOM);
  });

  it('lets Prometheus reach every service on its metrics ports only (http; OPA beside policy-sync), and nothing else from outside', () => {
    const metricsPorts = (service: ServiceName) =>
      service === 'policy-sync'
        ? [
            { protocol: 'TCP', port: 3666 },
            { protocol: 'TCP', port: 8181 },
          ]
        : [{ protocol: 'TCP', port: 3000 }];
    for (const service of SERVICE_NAMES) {
      expect(outsideRules(policyOf(policies, service))).toEqual([
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
            },
          ],
          ports: metricsPorts(service),
        },
      ]);
    }
  });

  it('lets the ingress controller reach core-backend while the Ingress exists', () => {
    const withIngress = makeInstall({
      services: allEnabled,
      ingress: { enabled: true, host: 'acme.example.com' },
      networkPolicy: {
        ingressController: {
          namespaceLabels: { 'kubernetes.io/metadata.name': 'traefik' },
          podLabels: { 'app.kubernetes.io/name': 'traefik' },
        },
      },
    });
    const core = outsideRules(policyOf(renderNetworkPolicies(withIngress), 'core-backend'));
    expect(core).toContainEqual({
      from: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'traefik' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'traefik' } },
        },
      ],
      ports: [{ protocol: 'TCP', port: 3000 }],
    });
    const others = SERVICE_NAMES.filter((s) => s !== 'core-backend');
    for (const s of others) {
      expect(outsideRules(policyOf(renderNetworkPolicies(withIngress), s))).toHaveLength(1);
    }
  });

  it('lets the ingress controller in exactly to the Services the Ingress routes to', () => {
    const withIngress = makeInstall({
      services: allEnabled,
      ingress: { enabled: true, host: 'acme.example.com' },
    });
    const objects = renderDesired({ install: withIngress, policies: {} });
    const routed = objects
      .filter((o) => o.kind === 'Ingress')
      .flatMap((o) => (o as V1Ingress).spec?.rules ?? [])
      .flatMap((rule) => rule.http?.paths ?? [])
      .map((path) => path.backend.service?.name);
    const letIn = SERVICE_NAMES.filter((s) => {
      const policy = objects.find(
        (o) => o.kind === 'NetworkPolicy' && o.metadata?.name === `acme-${s}`,
      );
      return outsideRules(policy as NetworkPolicy).some((rule) =>
        rule.from.some(
          (peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'ingress-nginx',
        ),
      );
    });
    expect(letIn).toEqual(['core-backend']);
    expect(new Set(routed)).toEqual(new Set(letIn.map((s) => `acme-${s}`)));
  });

  it('follows the install: a disabled service has no policy and lets nobody in by calling', () => {
    const lean = makeInstall({
      services: { ...allEnabled, summarizer: { enabled: false }, 'ocr-engine': { enabled: false } },
      dependencies: {
        ...makeInstall().spec.dependencies,
        ocrEngines: { local: { url: 'http://mineru.ocr:8000' } },
      },
    });
    const rendered = renderNetworkPolicies(lean);
    expect(rendered.map((p) => p.metadata?.name)).not.toContain('acme-summarizer');
    expect(rendered.map((p) => p.metadata?.name)).not.toContain('acme-ocr-engine');
    expect(callGraph(lean).filter((c) => c.target === 'summarizer')).toEqual([]);
  });

  it('renders none when spec.networkPolicy.enabled is false, and is on by default', () => {
    const off = makeInstall({ networkPolicy: { enabled: false } });
    expect(renderNetworkPolicies(off)).toEqual([]);
    expect(renderDesired({ install: off, policies: {} }).map((o) => o.kind)).not.toContain(
      'NetworkPolicy',
    );
    expect(renderDesired({ install: makeInstall(), policies: {} }).map((o) => o.kind)).toContain(
      'NetworkPolicy',
    );
  });

  it("is sent with each rule's peers through client-node's model (`from` is `_from` there)", () => {
    const policy = policyOf(policies, 'user-service');
    const model = toClientModel(policy) as unknown as {
      spec: { ingress: Array<Record<string, unknown>> };
    };
    expect(model.spec.ingress.every((rule) => rule._from && !('from' in rule))).toBe(true);
    expect(policy.spec.ingress?.every((rule) => rule.from.length > 0)).toBe(true);
  });
});
