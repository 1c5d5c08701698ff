import type { V1Ingress } from '@kubernetes/client-node';
import type { PlatformInstall } from '../crd/platform-install';
import { isEnabled } from './enabled-services';
import { childMeta, childName } from './meta';
import { CATALOG } from '../service-catalog';

/** The Ingress to core-backend; null when disabled or when core-backend does not run. */
export function renderIngress(install: PlatformInstall): V1Ingress | null {
  const { ingress } = install.spec;
  if (!ingress.enabled || !ingress.host || !isEnabled(install, 'core-backend')) return null;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: childMeta(install, 'core-backend'),
    spec: {
      ...(ingress.className ? { ingressClassName: ingress.className } : {}),
      ...(ingress.tlsSecretName
        ? { tls: [{ hosts: [ingress.host], secretName: ingress.tlsSecretName }] }
        : {}),
      rules: [
        {
          host: ingress.host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: {
                  service: {
                    name: childName(install, 'core-backend'),
                    port: { number: CATALOG['core-backend'].port },
                  },
                },
              },
            ],
          },
        },
      ],
    },
  };
}
