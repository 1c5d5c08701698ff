/**
 * The install's NetworkPolicies: ingress to its pods is denied unless a rule lets it in, and each
 * service is let in only from the install's services that call it (on the port they call), from
 * the ingress controller (core-backend, when the Ingress exists) and from Prometheus (its ports
 * with a /metrics: http, and OPA's beside policy-sync). Egress is not restricted.
 */
import type {
  KubernetesObject,
  V1LabelSelector,
  V1NetworkPolicyPeer,
  V1NetworkPolicyPort,
} from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { CATALOG, metricsPorts, OPA_PORT, type ServiceName } from '../service-catalog';
import { enabledServices, exposedServices, isEnabled } from './enabled-services';
import { childMeta, MANAGED_BY, selectorLabels } from './meta';
import { OWN_SETTINGS } from './own-settings';

/**
 * A NetworkPolicy as the API's JSON: client-node's model names a rule's `from` `_from`, and the
 * live objects in the cache (and the drift check comparing with them) have `from`. The client
 * maps it onto its model when applying (kube/client.ts).
 */
export interface NetworkPolicy extends KubernetesObject {
  spec: {
    podSelector: V1LabelSelector;
    policyTypes: Array<'Ingress'>;
    ingress?: IngressRule[];
  };
}
interface IngressRule {
  from: V1NetworkPolicyPeer[];
  ports: V1NetworkPolicyPort[];
}

/** One edge of the call graph: `caller` reaches `target` on `port`. */
export interface Call {
  caller: ServiceName;
  target: ServiceName;
  port: number;
}

/**
 * Who calls whom in this install, from the catalog: each running service's `links` (on the
 * linked port) and its own settings' `calls` (URLs built there), to services that run. A path is
 * open exactly when the catalog says a service calls another.
 */
export function callGraph(install: PlatformInstall): Call[] {
  const calls = new Map<string, Call>();
  const add = (caller: ServiceName, target: ServiceName, port: number) => {
    if (isEnabled(install, target))
      calls.set(`${caller}>${target}:${port}`, { caller, target, port });
  };
  for (const caller of enabledServices(install)) {
    const entry = CATALOG[caller];
    for (const link of Object.values(entry.links)) {
      add(caller, link.service, link.port === 'opa' ? OPA_PORT : CATALOG[link.service].port);
    }
    for (const target of OWN_SETTINGS[caller]?.calls?.(install) ?? []) {
      add(caller, target, CATALOG[target].port);
    }
  }
  return [...calls.values()];
}

/** The pods of the install, whatever the service: the default-deny policy's selector. */
function installPods(install: PlatformInstall): Record<string, string> {
  return {
    'app.kubernetes.io/instance': install.metadata.name,
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}

function externalPeer(peer: {
  namespaceLabels: Record<string, string>;
  podLabels: Record<string, string>;
}): V1NetworkPolicyPeer {
  return {
    namespaceSelector: { matchLabels: peer.namespaceLabels },
    podSelector: { matchLabels: peer.podLabels },
  };
}

const tcp = (port: number) => [{ protocol: 'TCP', port }];

function servicePolicy(
  install: PlatformInstall,
  service: ServiceName,
  calls: Call[],
): NetworkPolicy {
  const { networkPolicy } = install.spec;
  const port = CATALOG[service].port;
  const byPort = new Map<number, ServiceName[]>();
  for (const call of calls.filter((c) => c.target === service)) {
    byPort.set(call.port, [...(byPort.get(call.port) ?? []), call.caller]);
  }
  const rules: IngressRule[] = [...byPort.entries()]
    .sort(([a], [b]) => a - b)
    .map(([calledPort, callers]) => ({
      from: callers.sort().map((caller) => ({
        podSelector: { matchLabels: selectorLabels(install, caller) },
      })),
      ports: tcp(calledPort),
    }));
  // While the Ingress exposes it (renderIngress), the controller's pods forward to it.
  if (exposedServices(install).includes(service)) {
    rules.push({ from: [externalPeer(networkPolicy.ingressController)], ports: tcp(port) });
  }
  // Every port with a /metrics: the http port, and OPA's beside policy-sync (issue 19).
  rules.push({
    from: [externalPeer(networkPolicy.prometheus)],
    ports: metricsPorts(service).flatMap((p) => tcp(p.port)),
  });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: childMeta(install, service),
    spec: {
      podSelector: { matchLabels: selectorLabels(install, service) },
      policyTypes: ['Ingress'],
      ingress: rules,
    },
  };
}

/** Default deny first, then one policy per running service; none when `networkPolicy.enabled` is false. */
export function renderNetworkPolicies(install: PlatformInstall): NetworkPolicy[] {
  if (!install.spec.networkPolicy.enabled) return [];
  const calls = callGraph(install);
  const defaultDeny: NetworkPolicy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: childMeta(install, 'default-deny-ingress'),
    spec: { podSelector: { matchLabels: installPods(install) }, policyTypes: ['Ingress'] },
  };
  return [defaultDeny, ...enabledServices(install).map((s) => servicePolicy(install, s, calls))];
}
