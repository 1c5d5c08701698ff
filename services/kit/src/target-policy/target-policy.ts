/**
 * Decides whether an outbound connection may go to an address (SSRF protection): public addresses
 * always, others only when the allowlist lists the address (by range) or the host name the URL used.
 */
import { classifyAddress } from './address-ranges';
import { normaliseHostName, type AllowedTargets } from './allowed-targets';
import { parseIp, rangeContains, unmapIpv4 } from './ip-address';
import { TargetForbiddenError } from './target-forbidden-error';

export interface TargetPolicy {
  /** Throws TargetForbiddenError when `address`, reached for `hostname`, may not be connected to. */
  checkAddress(hostname: string, address: string): void;
  /**
   * Checks a URL whose host is an IP literal (the socket connects without a lookup). Host names
   * are checked by the guarded lookup, on the addresses actually connected to.
   */
  checkUrl(url: URL): void;
}

export function createTargetPolicy(allowed: AllowedTargets): TargetPolicy {
  function checkAddress(hostname: string, addressText: string): void {
    if (allowed.names.has(normaliseHostName(hostname))) return;
    const parsed = parseIp(addressText);
    if (!parsed) throw new TargetForbiddenError(hostname, addressText, 'unrecognised');
    // A socket to ::ffff:a.b.c.d reaches a.b.c.d: judge (and allow) it as that IPv4 address.
    const address = unmapIpv4(parsed);
    if (allowed.ranges.some((range) => rangeContains(range, address))) return;
    const kind = classifyAddress(address);
    if (kind !== 'public') throw new TargetForbiddenError(hostname, addressText, kind);
  }

  return {
    checkAddress,
    checkUrl(url) {
      const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (parseIp(hostname)) checkAddress(hostname, hostname);
    },
  };
}
