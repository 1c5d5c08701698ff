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
 * Returns plain objects and arrays with credentials removed (other objects are kept as they are:
 * serialisers turn those into plain data first). Numbers and booleans under sensitive keys are
 * kept, so counters such as `summary_tokens: 120` stay readable. The input is never changed:
 * what needs a change is copied, and what needs none is returned as it is — most log lines need
 * none, and copying every line was a visible share of a small request's CPU (issue 17).
 */
export function redact(value: unknown): unknown {
  return redactAt(value, []);
}

/** `ancestors`: the objects above `value`, to tell a cycle from an object met twice. */
function redactAt(value: unknown, ancestors: object[]): unknown {
  if (typeof value === 'string') return redactString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.length >= MAX_DEPTH) return '[Truncated]';
  if (ancestors.includes(value)) return '[Circular]';
  if (value instanceof Error || types.isNativeError(value)) return redactError(value, ancestors);
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  ancestors.push(value);
  const redacted = Array.isArray(value)
    ? redactArray(value as unknown[], ancestors)
    : redactObject(value as Record<string, unknown>, ancestors);
  ancestors.pop();
  return redacted;
}

function redactArray(array: unknown[], ancestors: object[]): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < array.length; index++) {
    const item = array[index];
    const clean = redactAt(item, ancestors);
    if (clean !== item) (copy ??= array.slice())[index] = clean;
  }
  return copy ?? array;
}

function redactObject(
  object: Record<string, unknown>,
  ancestors: object[],
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const item = object[key];
    const clean =
      isSensitiveKey(key) && typeof item !== 'number' && typeof item !== 'boolean' && item != null
        ? REDACTED
        : redactAt(item, ancestors);
    if (clean !== item) (copy ??= { ...object })[key] = clean;
  }
  return copy ?? object;
}

function redactError(err: Error, ancestors: object[]): Record<string, unknown> {
  const plain: Record<string, unknown> = { ...(err as unknown as Record<string, unknown>) };
  plain.type = err.name;
  plain.message = err.message;
  if (err.stack) plain.stack = err.stack;
  if (err.cause !== undefined) plain.cause = err.cause;
  ancestors.push(err);
  const redacted = redactObject(plain, ancestors);
  ancestors.pop();
  return redacted;
}

/**
 * An object literal or `Object.create(null)`, from any realm: jest runs tests in a separate
 * context, so comparing against this realm's `Object.prototype` would miss Node's own objects.
 */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}
