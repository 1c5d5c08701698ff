/** One forwarded call: build the request, authenticate, send it within the deadline; count and log it. */
import { errorMessage, HttpError } from '@pelita/kit';
import { authorizationFor } from './auth';
import type { ConnectionDescription } from './connection';
import { Deadline, type CallerGone, type CallSignal } from './deadline';
import { upstreamFailure } from './errors';
import type { OutboundRequest, UpstreamResponse } from './messages';
import { buildForwardedRequest } from './request-builder';
import type { UpstreamClient } from './upstream-client';
import type { UpstreamMetrics } from './upstream-metrics';

export interface ForwarderOptions {
  upstream: UpstreamClient;
  timeoutMs: number;
  metrics: UpstreamMetrics;
}

export interface ForwardContext {
  /**
   * Records the call's figures on the request's access-log line: one line per request, so the
   * hot path pays for one serialisation and one write, not two.
   */
  record: (fields: { upstream: Record<string, unknown> }) => void;
  /** Tells when the caller closes its connection before the answer is sent. */
  callerGone: CallerGone;
}

export interface Forwarder {
  /** The target's answer, whatever its status; rejects with an HttpError when there is none. */
  forward(connection: ConnectionDescription, context: ForwardContext): Promise<UpstreamResponse>;
}

export function createForwarder({ upstream, timeoutMs, metrics }: ForwarderOptions): Forwarder {
  return {
    async forward(connection, { record, callerGone }) {
      const request = buildForwardedRequest(connection);
      const started = performance.now();
      const deadline = new Deadline(timeoutMs, callerGone);
      const send = (next: OutboundRequest) => upstream.send(next, deadline);
      let status: number | undefined;
      let outcome = 'upstream_error';
      try {
        const authorization = await authorizationFor(connection, send);
        const response = await send(withAuthorization(request, authorization));
        status = response.status;
        outcome = `${Math.floor(status / 100)}xx`;
        return response;
      } catch (err) {
        const failure = asHttpError(err, deadline);
        outcome = failure.code;
        throw failure;
      } finally {
        deadline.clear();
        const durationMs = performance.now() - started;
        metrics.record(outcome, durationMs / 1000);
        // Host, method and path only: the description's auth and headers never reach a log line.
        // Without an answer the access log line says why, at the level its 4xx/5xx status gets.
        record({
          upstream: {
            name: connection.name,
            method: request.method,
            host: request.url.host,
            path: request.url.pathname,
            status,
            outcome,
            durationMs: Math.round(durationMs * 10) / 10,
          },
        });
      }
    },
  };
}

function withAuthorization(request: OutboundRequest, authorization: string | undefined) {
  if (authorization === undefined) return request;
  return { ...request, headers: { ...request.headers, authorization } };
}

/** The deadline's reason wins: a socket torn down by the abort reports a less useful error. */
function asHttpError(err: unknown, signal: CallSignal): HttpError {
  if (signal.aborted && signal.reason instanceof HttpError) return signal.reason;
  if (err instanceof HttpError) return err;
  return upstreamFailure(errorMessage(err), err);
}
