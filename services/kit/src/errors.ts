/** The one HTTP error type: domain code throws it, the error middleware turns it into a response. */
import { z } from 'zod';
import { isDependencyUnavailable } from './dependency-failure';

export interface ErrorDetail {
  /** Where the problem is: `body`, `query`, `params`, `headers`, or a domain-specific place. */
  in: string;
  /** Dotted path of the offending field inside `in`, empty for the whole part. */
  path: string;
  message: string;
}

export class HttpError extends Error {
  readonly status: number;
  /** Stable, machine-readable code (`invalid_request`, `not_found`, `upstream_timeout`, ...). */
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.details = options.details;
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new HttpError(400, 'invalid_request', message, details ? { details } : {});
export const unauthorized = (message = 'Authentication required') =>
  new HttpError(401, 'unauthorized', message);
export const forbidden = (message = 'Forbidden') => new HttpError(403, 'forbidden', message);
export const notFound = (message = 'Not found') => new HttpError(404, 'not_found', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);

/** The default error body of every Pelita endpoint whose spec does not fix another shape. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z
      .array(z.object({ in: z.string(), path: z.string(), message: z.string() }))
      .optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export function defaultErrorBody(err: HttpError): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details ? { details: err.details } : {}),
    },
  };
}

/**
 * Turns anything thrown into an HttpError: a dependency that could not be reached becomes a 503
 * (`dependency_unavailable`), other unknown errors a 500 that reveals nothing. Either way the
 * cause goes to the log, never to the caller.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  // body-parser and friends throw errors carrying a 4xx `status` and `expose: true`.
  if (isExposedClientError(err)) {
    const code = err.type === 'entity.too.large' ? 'payload_too_large' : 'invalid_request';
    return new HttpError(err.status, code, err.message, { cause: err });
  }
  if (isDependencyUnavailable(err)) {
    return new HttpError(
      503,
      'dependency_unavailable',
      'A service this request needs is unavailable; try again later',
      { cause: err },
    );
  }
  return new HttpError(500, 'internal_error', 'Internal server error', { cause: err });
}

interface ExposedClientError {
  status: number;
  expose: true;
  message: string;
  type?: string;
}

function isExposedClientError(err: unknown): err is ExposedClientError {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Partial<ExposedClientError>;
  return e.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500;
}
