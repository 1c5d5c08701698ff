/** The Ingress of a service the catalog exposes (`ingressPaths`): only those paths reach it. */
import type { V1Ingress } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { CATALOG, type ServiceName } from '../service-catalog';
import { exposedServices } from './enabled-services';
import { childMeta, childName } from './meta';

/** Null unless `spec.ingress` is on with a host and the service runs and is exposed. */
export function renderIngress(install: PlatformInstall, service: ServiceName): V1Ingress | null {
  const { ingress } = install.spec;
  if (!ingress.host || !exposedServices(install).includes(service)) return null;
  const backend = {
    service: { name: childName(install, service), port: { number: CATALOG[service].port } },
  };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: childMeta(install, service),
    spec: {
      ...(ingress.className ? { ingressClassName: ingress.className } : {}),
      ...(ingress.tlsSecretName
        ? { tls: [{ hosts: [ingress.host], secretName: ingress.tlsSecretName }] }
        : {}),
      rules: [
        {
          host: ingress.host,
          http: {
            paths: CATALOG[service].ingressPaths.map(({ path, pathType }) => ({
              path,
              pathType,
              backend,
            })),
          },
        },
      ],
    },
  };
}
