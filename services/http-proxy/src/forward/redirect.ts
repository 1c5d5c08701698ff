/** What to send next when a target answers with a redirect (pure: no I/O). */
import { isSensitiveKey } from '@pelita/kit';
import { upstreamFailure } from './errors';
import type { OutboundRequest } from './messages';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The request for the redirect target, or undefined when `status` is not a followable redirect.
 * Method rewriting follows the fetch standard: 303 turns everything but HEAD into GET, 301 and
 * 302 turn POST into GET; 307 and 308 keep method and body. Once a hop leaves `originalOrigin`,
 * `Authorization`, `Cookie` and every credential-looking header are dropped for good.
 */
export function redirectRequest(
  previous: OutboundRequest,
  status: number,
  location: string | undefined,
  originalOrigin: string,
): OutboundRequest | undefined {
  if (!REDIRECTS.has(status) || !location) return undefined;
  const url = resolveLocation(location, previous.url);
  const becomesGet =
    status === 303
      ? previous.method !== 'HEAD'
      : (status === 301 || status === 302) && previous.method === 'POST';
  let headers = { ...previous.headers };
  if (becomesGet) delete headers['content-type'];
  if (url.origin !== originalOrigin) headers = withoutCredentials(headers);
  return becomesGet
    ? { url, method: 'GET', headers }
    : { url, method: previous.method, headers, ...(previous.body ? { body: previous.body } : {}) };
}

function resolveLocation(location: string, base: URL): URL {
  let url: URL;
  try {
    url = new URL(location, base);
  } catch (err) {
    throw upstreamFailure('the target redirected to an invalid URL', err);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw upstreamFailure(`the target redirected to an unsupported ${url.protocol} URL`);
  }
  // Credentials in a Location URL would become a Basic header the caller never asked for.
  url.username = '';
  url.password = '';
  return url;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !isSensitiveKey(name)));
}
