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

/**
 * Everything the seed answers `Internal Server Error`. Each subclass says only its code; the
 * class's own name goes into logs.
 */
abstract class InternalSyncError extends HttpError {
  static readonly code: string;

  constructor(message: string, cause?: unknown) {
    super(500, new.target.code, message, { cause });
    this.name = new.target.name;
  }
}

export class UserServiceUnavailableError extends InternalSyncError {
  static override readonly code = 'user_service_unavailable';
}

export class OpaUnavailableError extends InternalSyncError {
  static override readonly code = 'opa_unavailable';
}

export class DataFileError extends InternalSyncError {
  static override readonly code = 'data_file_error';
}

/** The file exists but does not hold a JSON object (written by something else than this service). */
export class CorruptDataFileError extends DataFileError {}

/** The message of any error, with the message of its cause when it has one (fetch hides the reason there). */
export function describeError(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${errorMessage(err)}${cause}`;
}
