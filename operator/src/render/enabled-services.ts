/**
 * Which services of an install run, and so are rendered: the one place that reads
 * `services.<name>.enabled` (its default, the catalog's `built`, is resolved when the spec is
 * parsed). Every renderer and the reconciler's status ask here.
 */
import type { PlatformInstall } from '../crd/platform-install';
import { CATALOG, SERVICE_NAMES, type ServiceName } from '../service-catalog';

export function isEnabled(install: PlatformInstall, service: ServiceName): boolean {
  return install.spec.services[service].enabled;
}

/** The services that run, in apply order (a service after the services it calls). */
export function enabledServices(install: PlatformInstall): ServiceName[] {
  return SERVICE_NAMES.filter((service) => isEnabled(install, service));
}

/**
 * The services the install's Ingress exposes: those running with `ingressPaths` in the catalog,
 * while `spec.ingress` is enabled with a host (without one there is no Ingress).
 */
export function exposedServices(install: PlatformInstall): ServiceName[] {
  const { ingress } = install.spec;
  if (!ingress.enabled || !ingress.host) return [];
  return enabledServices(install).filter((service) => CATALOG[service].ingressPaths.length > 0);
}
