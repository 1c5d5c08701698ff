/**
 * The optional registry allowlist of the operator (`ALLOWED_IMAGE_REGISTRIES`): a tenant's spec
 * names the registry and the OPA image, so without it anyone who may edit a PlatformInstall
 * chooses what runs in the cluster.
 */
import type { PlatformInstall } from '../crd/platform-install';
import { CATALOG } from '../service-catalog';
import { enabledServices } from './enabled-services';
import { serviceImage } from './meta';

/** Every image the install's pods would run. */
export function installImages(install: PlatformInstall): string[] {
  const images = new Set<string>();
  for (const service of enabledServices(install)) {
    images.add(serviceImage(install, service));
    if (CATALOG[service].sidecars.includes('opa')) images.add(install.spec.image.opaImage);
  }
  return [...images];
}

/**
 * The image reference as a container runtime resolves it: Docker Hub names get their implicit
 * `docker.io/` (and `library/`), so `openpolicyagent/opa` matches `docker.io/openpolicyagent`.
 */
export function fullyQualified(image: string): string {
  const [first = '', ...rest] = image.split('/');
  if (isHost(first) && rest.length > 0) return image;
  return rest.length === 0 ? `docker.io/library/${image}` : `docker.io/${image}`;
}

function isHost(segment: string): boolean {
  return segment.includes('.') || segment.includes(':') || segment === 'localhost';
}

/** An allowlist entry as a prefix of fully qualified images: a host, or a host and path. */
function qualifiedPrefix(entry: string): string {
  const trimmed = entry.replace(/\/+$/, '');
  const [first = ''] = trimmed.split('/');
  return `${isHost(first) ? trimmed : `docker.io/${trimmed}`}/`;
}

/** The images not under any allowed prefix; none when the allowlist is empty (no policy). */
export function disallowedImages(
  install: PlatformInstall,
  allowedPrefixes: readonly string[],
): string[] {
  if (allowedPrefixes.length === 0) return [];
  const prefixes = allowedPrefixes.map(qualifiedPrefix);
  return installImages(install).filter((image) => {
    const full = fullyQualified(image);
    return !prefixes.some((prefix) => full.startsWith(prefix));
  });
}
