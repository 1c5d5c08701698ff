/**
 * Which addresses count as public. Everything in the IANA special-purpose registries (loopback,
 * private, link-local incl. cloud metadata, CGNAT, multicast, documentation, reserved) is not;
 * IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that IPv4 address.
 */
import { parseRange, rangeContains, type IpAddress, type IpRange } from './ip-address';

export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'reserved';

type Table = Array<[IpRange, AddressKind]>;

function table(entries: Array<[string, AddressKind]>): Table {
  return entries.map(([cidr, kind]) => {
    const range = parseRange(cidr);
    if (!range) throw new Error(`bad built-in range ${cidr}`);
    return [range, kind];
  });
}

// First match wins, so narrower ranges come before the ranges that contain them.
const IPV4: Table = table([
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

const IPV6: Table = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/8', 'reserved'],
  ['64:ff9b:1::/48', 'reserved'],
  ['100::/64', 'reserved'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['3fff::/20', 'reserved'],
  ['5f00::/16', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
]);

/** Only 2000::/3 is allocated as global unicast; anything outside it is not a public address. */
const GLOBAL_UNICAST = parseRange('2000::/3') as IpRange;

/** IPv6 ranges that embed an IPv4 address, with the bit offset of that address. */
const EMBEDDING: Array<[IpRange, bigint]> = [
  [parseRange('::ffff:0:0/96') as IpRange, 0n],
  [parseRange('64:ff9b::/96') as IpRange, 0n],
  [parseRange('2002::/16') as IpRange, 80n],
];

export function classifyAddress(address: IpAddress): AddressKind {
  if (address.family === 4) return lookup(IPV4, address) ?? 'public';
  for (const [range, offset] of EMBEDDING) {
    if (rangeContains(range, address)) {
      return classifyAddress({ family: 4, value: (address.value >> offset) & 0xffff_ffffn });
    }
  }
  const listed = lookup(IPV6, address);
  if (listed) return listed;
  return rangeContains(GLOBAL_UNICAST, address) ? 'public' : 'reserved';
}

function lookup(entries: Table, address: IpAddress): AddressKind | undefined {
  return entries.find(([range]) => rangeContains(range, address))?.[1];
}
