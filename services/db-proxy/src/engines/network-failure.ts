/** Socket-level errors (Node error codes), the same for both drivers. */
import { DatabaseFailure } from '../errors';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
]);
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'PROTOCOL_CONNECTION_LOST']);

/** A failure for a socket error code, or undefined when `code` is not one. */
export function networkFailure(code: string | undefined, message: string) {
  if (code === undefined) return undefined;
  if (UNREACHABLE.has(code)) {
    return new DatabaseFailure('unreachable', `Database server unreachable: ${message}`);
  }
  if (LOST.has(code)) {
    return new DatabaseFailure('connection_lost', `Connection to the database lost: ${message}`);
  }
  return undefined;
}
