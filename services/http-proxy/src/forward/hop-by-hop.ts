/**
 * Headers that describe one connection rather than the message (RFC 9110 section 7.6.1): never
 * copied from the caller's description to the target, nor from the target's answer to the caller.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export function isHopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name);
}

/** Header names a `Connection` header lists: hop-by-hop for that message too. */
export function connectionTokens(values: string[] | undefined): Set<string> {
  const tokens = new Set<string>();
  for (const value of values ?? []) {
    for (const token of value.split(',')) tokens.add(token.trim().toLowerCase());
  }
  return tokens;
}
