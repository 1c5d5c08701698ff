/** Which of the target's answer headers reach the caller. */
import { connectionTokens, isHopByHop } from './hop-by-hop';

/**
 * End-to-end headers with every value (repeated `Set-Cookie` stays repeated). `Content-Length` is
 * left out as well: the proxy frames the body itself, and for a HEAD target the caller's POST
 * answer has no body, so the target's length would be wrong.
 */
export function passThroughHeaders(headers: NodeJS.Dict<string[]>): Array<[string, string[]]> {
  const listed = connectionTokens(headers.connection);
  const kept: Array<[string, string[]]> = [];
  for (const [name, values] of Object.entries(headers)) {
    if (!values || isHopByHop(name) || listed.has(name) || name === 'content-length') continue;
    kept.push([name, values]);
  }
  return kept;
}
