/**
 * What can go wrong when talking to a database, and the HTTP answer for each. Engines translate
 * driver errors into a `DatabaseFailure`; the routes' domain layer turns it into an HttpError.
 */
import { HttpError } from '@pelita/kit';

export type FailureKind =
  | 'invalid_query'
  | 'unknown_database'
  | 'auth_failed'
  | 'permission_denied'
  | 'read_only'
  | 'host_not_allowed'
  | 'conflict'
  | 'unreachable'
  | 'connection_lost'
  | 'database_error'
  | 'too_many_connections'
  | 'pool_exhausted'
  | 'connect_timeout'
  | 'statement_timeout';

/** The typed mapping of DESIGN.md section 5, plus the cases it leaves open. */
const STATUS: Record<FailureKind, number> = {
  invalid_query: 400,
  unknown_database: 400,
  auth_failed: 401,
  permission_denied: 403,
  read_only: 403,
  host_not_allowed: 403,
  conflict: 409,
  unreachable: 502,
  connection_lost: 502,
  database_error: 502,
  too_many_connections: 503,
  pool_exhausted: 503,
  connect_timeout: 504,
  statement_timeout: 504,
};

/** Failures that mean "no connection could be established" (`/check-connection` answers 500). */
const CONNECTING: ReadonlySet<FailureKind> = new Set([
  'unknown_database',
  'auth_failed',
  'permission_denied',
  'unreachable',
  'connection_lost',
  'database_error',
  'too_many_connections',
  'connect_timeout',
]);

export class DatabaseFailure extends Error {
  readonly kind: FailureKind;
  /** SQLSTATE (PostgreSQL, MySQL) when the database reported one. */
  readonly sqlState: string | undefined;

  constructor(kind: FailureKind, message: string, sqlState?: string) {
    super(message);
    this.name = 'DatabaseFailure';
    this.kind = kind;
    this.sqlState = sqlState;
  }
}

/** The answer of `/tables` and `/execute`. */
export function toHttpError(failure: DatabaseFailure): HttpError {
  return new HttpError(STATUS[failure.kind], failure.kind, failure.message);
}

/** The answer of `/check-connection`: 500 for any connection failure, as the seed specifies. */
export function toConnectionCheckError(failure: DatabaseFailure): HttpError {
  const status = CONNECTING.has(failure.kind) ? 500 : STATUS[failure.kind];
  return new HttpError(status, failure.kind, failure.message);
}

/** The seed's error body, `{ error, code? }`, for every error this service answers. */
export function errorBody(err: HttpError): { error: string; code?: string } {
  const message = err.details?.length
    ? `Invalid request: ${err.details.map((detail) => detail.message).join('; ')}`
    : err.message;
  return { error: message, code: err.code };
}

/**
 * Removes the caller's password from a message that is about to leave the service. Databases do
 * not echo passwords, but a driver or a future code path might; this is the last line.
 */
export function withoutSecret(message: string, secret: string): string {
  return secret.length >= 3 ? message.split(secret).join('[REDACTED]') : message;
}
