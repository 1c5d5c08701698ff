/**
 * Asks OPA about `{ user, method, path }` (the input of `policies/`): `queryOpaRule` is the
 * transport to any rule under `/v1/data`, `opaDecision` the guard's yes or no from `allow`.
 */
import { HttpError } from '../errors';

export interface AuthorizationInput {
  user: string;
  method: string;
  path: string;
}

export interface OpaRuleOptions {
  /** Base URL of OPA, e.g. `http://127.0.0.1:8181`. */
  url: string;
  /** Rule path under `/v1/data`, e.g. `pelita/authz/allow`. */
  rule: string;
  timeoutMs?: number;
  /**
   * The error for a 401 or 403: OPA's own API policy (`policies/system_authz.rego`) does not
   * open this rule to the service. By default a 503 `authorization_unavailable` like any other
   * error answer.
   */
  refused?: () => HttpError;
}

export type OpaRuleQuery = (input: AuthorizationInput) => Promise<unknown>;

/**
 * `POST {url}/v1/data/{rule}` with `{ input }`, resolving to OPA's `result` (undefined when the
 * rule is undefined for that input or not loaded). Fails closed: no answer, or an error answer,
 * is a 503 `authorization_unavailable`.
 */
export function queryOpaRule({
  url,
  rule,
  timeoutMs = 2000,
  refused,
}: OpaRuleOptions): OpaRuleQuery {
  const endpoint = `${url.replace(/\/+$/, '')}/v1/data/${rule}`;
  return async function queryOpa(input) {
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new HttpError(503, 'authorization_unavailable', 'The policy engine did not answer', {
        cause: err,
      });
    }
    if (refused && (res.status === 401 || res.status === 403)) throw refused();
    if (!res.ok) {
      throw new HttpError(
        503,
        'authorization_unavailable',
        `The policy engine answered ${res.status}`,
      );
    }
    return ((await res.json()) as { result?: unknown }).result;
  };
}

export interface OpaDecisionOptions {
  /** Base URL of OPA, e.g. `http://127.0.0.1:8181`. */
  url: string;
  /** Rule path under `/v1/data`; `pelita/authz/allow` by default. */
  rule?: string;
  timeoutMs?: number;
}

export type DecideAccess = (input: AuthorizationInput) => Promise<boolean>;

export function opaDecision({
  url,
  rule = 'pelita/authz/allow',
  timeoutMs,
}: OpaDecisionOptions): DecideAccess {
  const query = queryOpaRule({ url, rule, timeoutMs });
  // An undefined rule (no policy loaded) answers `{}`: that is a deny, not an error.
  return async function decideWithOpa(input) {
    return (await query(input)) === true;
  };
}
