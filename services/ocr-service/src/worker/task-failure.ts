/**
 * What a failed task's status record says: `error` (a sentence a user can act on) and
 * `error_code`. The seed fixes one pair (`Task timeout`, 504) and leaves the rest open; Pelita
 * uses HTTP-style numbers throughout, so a client needs one rule: 4xx the input was at fault,
 * 5xx a dependency was.
 */
import { DownloadError, errorMessage, redactString } from '@pelita/kit';
import { ConversionError } from '../conversion/converter-client';
import { EngineFailedError, EngineTimeoutError } from '../engines/engine';

export interface TaskFailure {
  error: string;
  error_code: string | number;
}

/** A step failed in a way that has a code of its own (a missing engine, an unreadable input). */
export class TaskError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = 'TaskError';
  }
}

const DOWNLOAD_CODES: Record<DownloadError['reason'], number> = {
  forbidden: 403,
  scheme: 400,
  too_large: 413,
  timeout: 504,
  status: 502,
  network: 502,
};

/** The record's `error` and `error_code` for `err`, thrown while `stage` ran. */
export function taskFailure(err: unknown, stage: string): TaskFailure {
  const failure = classify(err, stage);
  // Messages quote URLs and dependency answers: never a credential in a status record.
  return { ...failure, error: redactString(failure.error) };
}

function classify(err: unknown, stage: string): TaskFailure {
  if (err instanceof EngineTimeoutError) return { error: err.message, error_code: err.code };
  if (err instanceof EngineFailedError) return { error: err.message, error_code: err.code };
  if (err instanceof TaskError) return { error: err.message, error_code: err.code };
  if (err instanceof ConversionError) return { error: err.message, error_code: err.status };
  if (err instanceof DownloadError)
    return {
      error: `the file could not be downloaded: ${err.message}`,
      error_code: DOWNLOAD_CODES[err.reason],
    };
  // Anything else is Pelita's own fault: said as it is, with the stage it happened in.
  return { error: `${stage}: ${errorMessage(err)}`, error_code: 500 };
}
