/** Asks OPA whether `{ user, method, path }` is allowed (the input of `policies/`). */
import { HttpError } from '../errors';

export interface AuthorizationInput {
  user: string;
  method: string;
  path: string;
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
  timeoutMs = 2000,
}: OpaDecisionOptions): DecideAccess {
  const endpoint = `${url.replace(/\/+$/, '')}/v1/data/${rule}`;
  return async function decideWithOpa(input) {
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      // Fail closed: no decision means no access, and the caller learns why.
      throw new HttpError(503, 'authorization_unavailable', 'The policy engine did not answer', {
        cause: err,
      });
    }
    if (!res.ok) {
      throw new HttpError(
        503,
        'authorization_unavailable',
        `The policy engine answered ${res.status}`,
      );
    }
    const body = (await res.json()) as { result?: unknown };
    // An undefined rule (no policy loaded) answers `{}`: that is a deny, not an error.
    return body.result === true;
  };
}
