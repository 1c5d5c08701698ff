/**
 * ALLOWED_DB_HOSTS: which database hosts may be reached. The x-db-host header is chosen by the
 * caller, so it is an SSRF vector: a name is checked on the addresses it resolves to, and the
 * connection then goes to the checked address (no second lookup an attacker could answer).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { errorMessage } from '@pelita/kit';
import { DatabaseFailure } from '../errors';

export interface HostAllowlist {
  /** Host names allowed as written (lower case); trusted without looking at their addresses. */
  readonly names: ReadonlySet<string>;
  /** `*.example.com` entries, kept as `.example.com`. */
  readonly suffixes: readonly string[];
  /** CIDR and single-address entries. */
  readonly addresses: BlockList;
}

const HOST_NAME =
  /^(?:\*\.)?[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/i;

/**
 * Parses the setting; `null` when it lists nothing (see `hostPolicy` for what that allows). Throws
 * on a bad entry.
 */
export function parseHostAllowlist(entries: readonly string[]): HostAllowlist | null {
  if (entries.length === 0) return null;
  const names = new Set<string>();
  const suffixes: string[] = [];
  const addresses = new BlockList();
  for (const entry of entries) {
    const [network, prefix, ...rest] = entry.split('/');
    const family = isIP(network ?? '');
    if (family !== 0 && network) {
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) {
        addresses.addAddress(network, type);
        continue;
      }
      const bits = Number(prefix);
      const max = family === 4 ? 32 : 128;
      if (rest.length > 0 || !/^\d{1,3}$/.test(prefix) || bits > max) {
        throw new Error(`ALLOWED_DB_HOSTS: "${entry}" is not a valid CIDR`);
      }
      addresses.addSubnet(network, bits, type);
    } else if (HOST_NAME.test(entry)) {
      const name = entry.toLowerCase();
      if (name.startsWith('*.')) suffixes.push(name.slice(1));
      else names.add(name);
    } else {
      throw new Error(
        `ALLOWED_DB_HOSTS: "${entry}" is neither a CIDR, an IP address nor a host name`,
      );
    }
  }
  return { names, suffixes, addresses };
}

/**
 * What may be reached: the list; every host (`null`) only when ALLOW_ANY_DB_HOST says so; with
 * neither, no host — an open default let any caller probe the cluster's network by error code.
 */
export function hostPolicy(list: HostAllowlist | null, allowAny: boolean): HostAllowlist | null {
  if (allowAny) return null;
  return list ?? { names: new Set(), suffixes: [], addresses: new BlockList() };
}

const isEmpty = (list: HostAllowlist) =>
  list.names.size === 0 && list.suffixes.length === 0 && list.addresses.rules.length === 0;

export function isAddressAllowed(list: HostAllowlist, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return list.addresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export function isNameAllowed(list: HostAllowlist, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return list.names.has(name) || list.suffixes.some((suffix) => name.endsWith(suffix));
}

export type ResolveHost = (host: string) => Promise<string[]>;

async function resolveWithDns(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/**
 * The address to connect to for `host`: the host itself when any host may be reached or the list
 * names it; else the resolved address, provided every address the name resolves to is allowed (the
 * driver could otherwise pick another one). Throws `host_not_allowed`, or `unreachable` when the
 * name does not resolve.
 */
export async function authoriseHost(
  list: HostAllowlist | null,
  host: string,
  resolve: ResolveHost = resolveWithDns,
): Promise<string> {
  if (!list) return host;
  // Refused before any lookup, so not even the name's resolving shows.
  if (isEmpty(list)) {
    throw new DatabaseFailure(
      'host_not_allowed',
      'No database host is allowed: ALLOWED_DB_HOSTS is empty (list the database hosts, or set ALLOW_ANY_DB_HOST=true)',
    );
  }
  if (isIP(host) !== 0) {
    if (isAddressAllowed(list, host)) return host;
    throw refused(host);
  }
  if (isNameAllowed(list, host)) return host;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
    throw new DatabaseFailure('unreachable', `Cannot resolve database host ${host}: ${reason}`);
  }
  const refusedAddress = addresses.find((address) => !isAddressAllowed(list, address));
  if (addresses.length === 0 || refusedAddress !== undefined) {
    throw refused(`${host} (${refusedAddress ?? 'no address'})`);
  }
  return addresses[0] as string;
}

// The message does not list the allowed entries: they describe the private network.
function refused(what: string): DatabaseFailure {
  return new DatabaseFailure(
    'host_not_allowed',
    `Database host ${what} is not allowed by this service's ALLOWED_DB_HOSTS setting`,
  );
}
