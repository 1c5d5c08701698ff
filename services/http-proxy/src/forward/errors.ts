/**
 * The ways a forwarded call ends without a target answer to pass through. Each is an HttpError,
 * so it reaches the caller as `{ error: { code, message } }`; `code` is also the metrics outcome.
 * Messages name hosts, addresses and limits, never a credential.
 */
import { HttpError, type TargetForbiddenError } from '@pelita/kit';

/** The kit's target policy refused an address: the same 403, worded for the proxy's callers. */
export function targetForbidden(refusal: TargetForbiddenError): HttpError {
  return new HttpError(
    403,
    'target_forbidden',
    `Target ${refusal.target} is a ${refusal.kind} address; this proxy reaches public addresses ` +
      'only, unless ALLOWED_TARGETS lists the target',
    { cause: refusal },
  );
}

export class UpstreamTimeoutError extends HttpError {
  constructor(timeoutMs: number) {
    super(504, 'upstream_timeout', `The target did not answer within ${timeoutMs} ms`);
    this.name = 'UpstreamTimeoutError';
  }
}

export class ResponseTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(
      502,
      'upstream_response_too_large',
      `The target's answer is larger than ${limitBytes} bytes (MAX_RESPONSE_BYTES)`,
    );
    this.name = 'ResponseTooLargeError';
  }
}

export class LoginFailedError extends HttpError {
  constructor(reason: string, cause?: unknown) {
    super(500, 'login_failed', `JWT login step failed: ${reason}`, { cause });
    this.name = 'LoginFailedError';
  }
}

/** The caller closed its connection; nobody reads this answer, but the call is counted. */
export class CallerGoneError extends HttpError {
  constructor() {
    super(499, 'caller_gone', 'The caller closed the connection before the target answered');
    this.name = 'CallerGoneError';
  }
}

/** Any other failure of the forwarded request: the seed's 500 (rule 8). */
export function upstreamFailure(reason: string, cause?: unknown): HttpError {
  return new HttpError(500, 'upstream_error', `The forwarded request failed: ${reason}`, { cause });
}
