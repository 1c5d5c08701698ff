/**
 * Removes credentials from anything about to be logged: values under credential-like keys at
 * any depth, and credentials embedded in strings (URL user info, `Bearer`/`Basic` schemes).
 */
import { types } from 'node:util';

export const REDACTED = '[REDACTED]';

/**
 * Key fragments, compared against the key lower-cased with `-` and `_` removed, so
 * `x-db-password`, `client_secret`, `apiKey`, `Set-Cookie` and `refresh_token` all match.
 */
const SENSITIVE_KEY_PARTS = [
  'password',
  'passwd',
  'secret',
  'token',
  'authorization',
  'cookie',
  'apikey',
  'credential',
  'privatekey',
  'sessionid',
  'signature',
];

const MAX_DEPTH = 12;

/**
 * Keys repeat (every access-log line has the same dozen), so the answer is remembered: the
 * lower-casing, replacement and part search per key were a visible share of each logged line
 * in the http-proxy's CPU profile (issue 17). Bounded: cleared when it holds too many.
 */
const sensitiveKeys = new Map<string, boolean>();
const REMEMBERED_KEYS = 4096;

export function isSensitiveKey(key: string): boolean {
  const known = sensitiveKeys.get(key);
  if (known !== undefined) return known;
  const normalised = key.toLowerCase().replace(/[-_]/g, '');
  const sensitive = SENSITIVE_KEY_PARTS.some((part) => normalised.includes(part));
  if (sensitiveKeys.size >= REMEMBERED_KEYS) sensitiveKeys.clear();
  sensitiveKeys.set(key, sensitive);
  return sensitive;
}

const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):[^@/?#\s]+@/gi;
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const QUERY_CREDENTIAL =
  /([?&][^=&#\s]*(?:password|passwd|secret|token|apikey|api_key|signature)[^=&#\s]*=)[^&#\s]+/gi;

const MAY_HOLD_CREDENTIAL = /[@=]|Bearer|Basic/;

export function redactString(value: string): string {
  // Every pattern needs one of these; most logged strings (methods, paths, ids) have none.
  if (!MAY_HOLD_CREDENTIAL.test(value)) return value;
  return value
    .replace(URL_USERINFO, `$1:${REDACTED}@`)
    .replace(AUTH_SCHEME, `$1 ${REDACTED}`)
    .replace(QUERY_CREDENTIAL, `$1${REDACTED}`);
}

/**
 * Returns a redacted copy of plain objects and arrays (other objects are kept as they are:
 * serialisers turn those into plain data first). Numbers and booleans under sensitive keys
 * are kept, so counters such as `summary_tokens: 120` stay readable.
 */
export function redact(value: unknown): unknown {
  return redactAt(value, 0, new WeakSet());
}

function redactAt(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (seen.has(value)) return '[Circular]';
  if (Array.isArray(value)) {
    seen.add(value);
    return value.map((item) => redactAt(item, depth + 1, seen));
  }
  if (value instanceof Error || types.isNativeError(value)) return redactError(value, depth, seen);
  if (!isPlainObject(value)) return value;
  seen.add(value);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] =
      isSensitiveKey(key) && typeof item !== 'number' && typeof item !== 'boolean' && item != null
        ? REDACTED
        : redactAt(item, depth + 1, seen);
  }
  return copy;
}

function redactError(err: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  seen.add(err);
  const plain: Record<string, unknown> = { ...(err as unknown as Record<string, unknown>) };
  plain.type = err.name;
  plain.message = err.message;
  if (err.stack) plain.stack = err.stack;
  if (err.cause !== undefined) plain.cause = err.cause;
  return redactAt(plain, depth, seen) as Record<string, unknown>;
}

/**
 * An object literal or `Object.create(null)`, from any realm: jest runs tests in a separate
 * context, so comparing against this realm's `Object.prototype` would miss Node's own objects.
 */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}
