/** `Authorization: Basic base64(user:password)` parsed (RFC 7617: the password may contain colons). */
export function basicCredentials(
  header: string | undefined,
): { user: string; password: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
