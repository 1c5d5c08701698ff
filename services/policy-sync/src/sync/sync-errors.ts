/**
 * Why a sync failed. Each is an HttpError, so a sync run for a request answers with its status:
 * 403 when the user service answered with another status than 200 (the seed's condition, with a
 * message that says what happened), 500 for everything else (the seed's `Internal Server Error`).
 */
import { errorMessage, HttpError } from '@pelita/kit';

export class UserServiceStatusError extends HttpError {
  constructor(
    readonly upstreamStatus: number,
    path: string,
  ) {
    super(403, 'user_service_status', `user service answered ${upstreamStatus} for ${path}`);
    this.name = 'UserServiceStatusError';
  }
}

export class UserServiceUnavailableError extends HttpError {
  constructor(message: string, cause?: unknown) {
    super(500, 'user_service_unavailable', message, { cause });
    this.name = 'UserServiceUnavailableError';
  }
}

export class OpaUnavailableError extends HttpError {
  constructor(message: string, cause?: unknown) {
    super(500, 'opa_unavailable', message, { cause });
    this.name = 'OpaUnavailableError';
  }
}

export class DataFileError extends HttpError {
  constructor(message: string, cause?: unknown) {
    super(500, 'data_file_error', message, { cause });
    this.name = 'DataFileError';
  }
}

/** The file exists but does not hold a JSON object (written by something else than this service). */
export class CorruptDataFileError extends DataFileError {
  constructor(message: string, cause?: unknown) {
    super(message, cause);
    this.name = 'CorruptDataFileError';
  }
}

/** The message of any error, with the message of its cause when it has one (fetch hides the reason there). */
export function describeError(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${errorMessage(err)}${cause}`;
}
