/** Turns a connection description into the request sent to the target (seed rules 2, 4, 5, 6). */
import { badRequest } from '@pelita/kit';
import type { ConnectionDescription, QueryParamDescription } from './connection';
import { encodeForm } from './form-encoding';
import { isHopByHop } from './hop-by-hop';
import type { OutboundMethod, OutboundRequest } from './messages';

const FORM = 'application/x-www-form-urlencoded';
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;
const METHODS_WITH_BODY = new Set<OutboundMethod>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Set by the proxy from the message itself; a described value would contradict it. */
const FRAMING = new Set(['host', 'content-length', 'expect']);

export function buildForwardedRequest(connection: ConnectionDescription): OutboundRequest {
  const { endpoint } = connection;
  const url = targetUrl(connection.host, endpoint.path, endpoint.params, 'endpoint.path');
  const headers = describedHeaders(connection.headers);
  const method = endpoint.method;
  const value: unknown = endpoint.body ?? connection.body;
  if (!METHODS_WITH_BODY.has(method) || value === undefined || value === null) {
    return { url, method, headers };
  }
  headers['content-type'] ??= FORM;
  return { url, method, headers, body: encodeBody(value, headers['content-type']) };
}

/**
 * `host` followed by `path` (rule 2), joined with exactly one `/`; a base path in `host`
 * (`https://api.example.com/v2`) is kept. Params are appended to any query `path` already has.
 */
export function targetUrl(
  host: string,
  path: string,
  params: QueryParamDescription[],
  pathField: string,
): URL {
  let url: URL;
  try {
    url = new URL(joinPath(host, path));
  } catch {
    throw badRequest(`connection.host and connection.${pathField} do not form a valid URL`, [
      { in: 'body', path: `connection.${pathField}`, message: 'does not form a valid URL' },
    ]);
  }
  if (params.length > 0) {
    const query = new URLSearchParams(
      params.map(({ key, value }): [string, string] => [key, value]),
    ).toString();
    url.search = url.search.length > 1 ? `${url.search}&${query}` : query;
  }
  return url;
}

/** The described headers with lower-case names, minus hop-by-hop and framing headers. */
export function describedHeaders(described: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(described)) {
    const lower = name.toLowerCase();
    if (!isHopByHop(lower) && !FRAMING.has(lower)) headers[lower] = value;
  }
  return headers;
}

/**
 * Rule 5 sends a form. A JSON content type among the described headers sends JSON instead; a
 * string body is sent as it is (the caller encoded it already), whatever the content type.
 */
function encodeBody(value: unknown, contentType: string): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (JSON_MEDIA_TYPE.test(contentType)) return Buffer.from(JSON.stringify(value), 'utf8');
  if (typeof value === 'object' && value !== null) return Buffer.from(encodeForm(value), 'utf8');
  return Buffer.from(String(value as number | boolean), 'utf8');
}

function joinPath(host: string, path: string): string {
  if (path === '') return host;
  if (host.endsWith('/') && path.startsWith('/')) return host + path.slice(1);
  if (host.endsWith('/') || /^[/?#]/.test(path)) return host + path;
  return `${host}/${path}`;
}
