/**
 * The DNS lookup the outbound sockets use. It resolves the name and checks every address before
 * the socket connects, so the address checked is the address connected to: a name that answers
 * with a public address to a first query and a private one later (DNS rebinding) cannot slip by.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { TargetPolicy } from './target-policy';

type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A name is refused when any of its addresses is refused: connecting would otherwise depend on
 * which address the connection attempt happens to pick.
 */
export function createGuardedLookup(
  policy: TargetPolicy,
  resolveAll: ResolveAll = dnsLookup,
): LookupFunction {
  return function guardedLookup(hostname, options, callback) {
    resolveAll(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      try {
        for (const { address } of addresses) policy.checkAddress(hostname, address);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '', 0);
      }
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first) return callback(notFound(hostname), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}
