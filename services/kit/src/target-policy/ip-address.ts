/** IPv4 and IPv6 addresses as integers, and CIDR ranges over them: what the target policy compares. */
import { isIPv4, isIPv6 } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

export interface IpRange {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

const BITS = { 4: 32n, 6: 128n } as const;

/** Parses `1.2.3.4`, `::1`, `[::1]` (URL form) or `fe80::1%eth0` (zone dropped); otherwise undefined. */
export function parseIp(text: string): IpAddress | undefined {
  const bracketless = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const bare = bracketless.split('%')[0] ?? '';
  if (isIPv4(bare)) return { family: 4, value: ipv4Value(bare) };
  if (isIPv6(bare)) return { family: 6, value: ipv6Value(bare) };
  return undefined;
}

/** Parses `10.0.0.0/8`, `fc00::/7`, or a bare address (a range of one); otherwise undefined. */
export function parseRange(text: string): IpRange | undefined {
  const [addressText = '', prefixText, extra] = text.split('/');
  if (extra !== undefined) return undefined;
  const address = parseIp(addressText);
  if (!address) return undefined;
  const bits = Number(BITS[address.family]);
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? '0') || prefix > bits) return undefined;
  const shift = BigInt(bits - prefix);
  return { family: address.family, network: (address.value >> shift) << shift, prefix };
}

export function rangeContains(range: IpRange, address: IpAddress): boolean {
  if (range.family !== address.family) return false;
  const shift = BITS[range.family] - BigInt(range.prefix);
  return address.value >> shift === range.network >> shift;
}

/** The IPv4 address carried in an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else the address itself. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 6 && address.value >> 32n === 0xffffn) {
    return { family: 4, value: address.value & 0xffff_ffffn };
  }
  return address;
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Expands `::` and a trailing dotted quad; the text is already known to be valid IPv6. */
function ipv6Value(text: string): bigint {
  const [head = '', tail] = text.split('::');
  const headGroups = groupsOf(head);
  const tailGroups = tail === undefined ? [] : groupsOf(tail);
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...new Array<number>(zeros).fill(0), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

function groupsOf(part: string): number[] {
  if (part === '') return [];
  return part.split(':').flatMap((group) => {
    if (!group.includes('.')) return [parseInt(group, 16)];
    const v4 = Number(ipv4Value(group));
    return [v4 >>> 16, v4 & 0xffff];
  });
}
