/**
 * The bytes of a JSON request body as they arrived. A webhook signed by its sender (an HMAC of
 * the raw body, as Meta's `X-Hub-Signature-256`) can only be checked over those bytes: the
 * parsed and re-serialised object differs in spacing, key order and escapes.
 */
import type { IncomingMessage } from 'node:http';

const RAW_BODY = Symbol('rawBody');

/** Kept by the service's JSON parser (express's and the fast path's) on every JSON request. */
export function keepRawBody(req: IncomingMessage, body: Buffer): void {
  (req as IncomingMessage & { [RAW_BODY]?: Buffer })[RAW_BODY] = body;
}

/** The request's JSON body as received; undefined when it had none (or was not JSON). */
export function rawBodyOf(req: IncomingMessage): Buffer | undefined {
  return (req as IncomingMessage & { [RAW_BODY]?: Buffer })[RAW_BODY];
}
