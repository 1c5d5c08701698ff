/** Socket-level errors (Node error codes), the same for both drivers. */
import { CONNECTION_LOST_CODES, UNREACHABLE_CODES } from '@pelita/kit';
import { DatabaseFailure } from '../errors';

/** A failure for a socket error code, or undefined when `code` is not one. */
export function networkFailure(code: string | undefined, message: string) {
  if (code === undefined) return undefined;
  if (UNREACHABLE_CODES.has(code)) {
    return new DatabaseFailure('unreachable', `Database server unreachable: ${message}`);
  }
  if (CONNECTION_LOST_CODES.has(code)) {
    return new DatabaseFailure('connection_lost', `Connection to the database lost: ${message}`);
  }
  return undefined;
}
