/**
 * What went wrong with a call to an OpenAI-compatible model server (through the `openai`
 * package), and the HTTP answer it becomes when a request cannot be served: transient trouble
 * (unreachable, rate-limited, 503 from the model server) is 503, a time-out 504, a bad answer
 * or another error status from the model server 502.
 */
import type * as OpenAI from 'openai';
import type { APIError } from 'openai';
import { errorMessage } from './error-message';
import { HttpError } from './errors';

/**
 * The `openai` package's error classes, required when an error is looked at rather than when the
 * kit is imported: a caller of a model has loaded the package already, other importers never pay.
 */
function openAiErrors(): typeof OpenAI {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('openai') as typeof OpenAI;
}

/** An error answer (or failed connection) of the `openai` client. */
export function isOpenAiError(err: unknown): err is APIError {
  return err instanceof openAiErrors().APIError;
}

/** How one model call ended (a label value of the services' model-call metrics). */
export type CallOutcome =
  | 'success'
  | 'invalid_output'
  | 'rate_limited'
  | 'unavailable'
  | 'unreachable'
  | 'timeout'
  | 'aborted'
  | 'upstream_error';

/** The model answered, three times, with nothing that parses as the JSON asked for. */
export class ModelOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelOutputError';
  }
}

/** A failure of the model server or of its answer (anything else is a bug of ours). */
export function isModelFailure(err: unknown): boolean {
  return err instanceof ModelOutputError || isOpenAiError(err);
}

/** The caller went away; the remaining model calls are cancelled. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return err instanceof openAiErrors().APIUserAbortError || (signal?.aborted ?? false);
}

export function outcomeOf(err: unknown): Exclude<CallOutcome, 'success'> {
  const {
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    APIUserAbortError,
    RateLimitError,
  } = openAiErrors();
  if (err instanceof ModelOutputError) return 'invalid_output';
  if (err instanceof APIUserAbortError) return 'aborted';
  if (err instanceof APIConnectionTimeoutError) return 'timeout';
  if (err instanceof APIConnectionError) return 'unreachable';
  if (err instanceof RateLimitError) return 'rate_limited';
  if (err instanceof APIError && err.status === 503) return 'unavailable';
  return 'upstream_error';
}

/** A short, credential-free description of a model call failure, for logs and error bodies. */
export function describeModelError(err: unknown): string {
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = openAiErrors();
  if (err instanceof ModelOutputError) return err.message;
  if (err instanceof APIConnectionTimeoutError) return 'the model server did not answer in time';
  if (err instanceof APIConnectionError) return 'the model server is unreachable';
  if (err instanceof APIError) {
    return `the model server answered ${err.status ?? 'an error'}${err.message ? `: ${err.message}` : ''}`;
  }
  return errorMessage(err);
}

/** The HTTP status and error code answered for each way a model call fails. */
const UPSTREAM_ANSWERS: Record<Exclude<CallOutcome, 'success'>, [number, string]> = {
  unreachable: [503, 'llm_unreachable'],
  rate_limited: [503, 'llm_rate_limited'],
  unavailable: [503, 'llm_unavailable'],
  timeout: [504, 'llm_timeout'],
  invalid_output: [502, 'llm_invalid_output'],
  aborted: [499, 'client_closed_request'],
  upstream_error: [502, 'llm_error'],
};

/** The HTTP error for a request that failed because of `err`; `context` says what failed. */
export function toUpstreamHttpError(err: unknown, context: string): HttpError {
  if (!isModelFailure(err)) {
    return new HttpError(500, 'internal_error', 'Internal server error', { cause: err });
  }
  const [status, code] = UPSTREAM_ANSWERS[outcomeOf(err)];
  return new HttpError(status, code, `${context}: ${describeModelError(err)}`, { cause: err });
}
