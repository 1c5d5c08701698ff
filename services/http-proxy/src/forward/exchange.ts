/** One HTTP exchange with a target: send the request, collect the whole answer within the size cap. */
import http from 'node:http';
import https from 'node:https';
import { ResponseTooLargeError } from './errors';
import type { OutboundAgents } from './agents';
import type { CallSignal } from './deadline';
import type { OutboundRequest, UpstreamResponse } from './messages';

export interface ExchangeOptions {
  agents: OutboundAgents;
  maxResponseBytes: number;
}

/**
 * A pooled keep-alive socket the target had already closed: the request never reached the target,
 * so sending it again on a fresh socket is safe.
 */
export class StaleConnectionError extends Error {
  constructor(cause: unknown) {
    super('pooled connection was closed by the target', { cause });
    this.name = 'StaleConnectionError';
  }
}

/**
 * The answer is collected in full before anything goes back to the caller: only then can a size
 * overrun or a time-out mid-body still become a proper 502/504 instead of a truncated answer.
 * Rejects with `signal.reason` when the signal aborts.
 */
export function exchange(
  request: OutboundRequest,
  options: ExchangeOptions,
  signal: CallSignal,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
    const { url, method, headers, body } = request;
    const secure = url.protocol === 'https:';
    const { maxResponseBytes } = options;
    let response: http.IncomingMessage | undefined;

    const fail = (err: Error) => {
      unsubscribe();
      response?.destroy();
      outgoing.destroy();
      reject(err);
    };
    const onAbort = () => fail(signal.reason ?? new Error('aborted'));

    const transport = secure ? https : http;
    const agent = secure ? options.agents.https : options.agents.http;
    // An explicit length: node would send a DELETE body without any framing header.
    const framed = body ? { ...headers, 'content-length': String(body.length) } : headers;
    const outgoing = transport.request(url, { method, headers: framed, agent }, (res) => {
      response = res;
      // A HEAD answer's length describes a body that never comes.
      const declared = method === 'HEAD' ? 0 : Number(res.headers['content-length']);
      if (declared > maxResponseBytes) {
        return fail(new ResponseTooLargeError(maxResponseBytes));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxResponseBytes) fail(new ResponseTooLargeError(maxResponseBytes));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        unsubscribe();
        resolve({
          status: res.statusCode ?? 502,
          headers: res.headersDistinct,
          body: chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size),
          url,
        });
      });
      res.on('error', fail);
    });
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      const stale = outgoing.reusedSocket && !response && err.code === 'ECONNRESET';
      fail(stale ? new StaleConnectionError(err) : err);
    });
    const unsubscribe = signal.onAbort(onAbort);
    outgoing.end(body);
  });
}
