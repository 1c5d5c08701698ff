/**
 * Trace context across a queue: the producer writes the W3C `traceparent` of its current span
 * into the message, the consumer continues that trace in a span of its own. Through the
 * OpenTelemetry API only: without a started SDK both ends are cheap no-ops.
 */
import { context, propagation, trace, SpanStatusCode, type Span } from '@opentelemetry/api';

const tracer = () => trace.getTracer('@pelita/kit');

/** The `traceparent` of the active span, or undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * Runs `work` in a span named `name`, a child of the trace `traceparent` names (a new trace
 * when it is undefined). The span records a thrown error and always ends.
 */
export async function inTraceOf<T>(
  traceparent: string | undefined,
  name: string,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = traceparent
    ? propagation.extract(context.active(), { traceparent })
    : context.active();
  return tracer().startActiveSpan(name, {}, parent, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
