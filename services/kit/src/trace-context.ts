/**
 * Trace context across a queue: the producer writes the W3C `traceparent` of its current span
 * into the message, the consumer continues that trace in a span of its own. Through the
 * OpenTelemetry API only: without a started SDK both ends are cheap no-ops.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  SpanKind,
  SpanStatusCode,
  type Link,
  type Span,
} from '@opentelemetry/api';

const tracer = () => trace.getTracer('@pelita/kit');

/** The `traceparent` of the active span, or undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

export interface InTraceOptions {
  /** The span's kind; `CONSUMER` (the taker of a queued message) unless said otherwise. */
  kind?: SpanKind;
  /**
   * Further messages this one span handles (a batch): each `traceparent` becomes a span link,
   * so their traces lead here too. Undefined ones and the parent itself are left out.
   */
  links?: ReadonlyArray<string | undefined>;
}

/** The span context a `traceparent` names, or undefined when it names none (malformed). */
function spanContextOf(traceparent: string) {
  return trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
}

/**
 * Runs `work` in a span named `name`, a child of the trace `traceparent` names — a new trace
 * when it is undefined, whatever span is active where this is called (a queue's loop may run in
 * the context of the message before). The span records a thrown error and always ends.
 */
export async function inTraceOf<T>(
  traceparent: string | undefined,
  name: string,
  work: (span: Span) => Promise<T>,
  options: InTraceOptions = {},
): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  const links: Link[] = [];
  for (const other of new Set(options.links ?? [])) {
    if (!other || other === traceparent) continue;
    const linked = spanContextOf(other);
    if (linked) links.push({ context: linked });
  }
  const spanOptions = { kind: options.kind ?? SpanKind.CONSUMER, links };
  return tracer().startActiveSpan(name, spanOptions, parent, (span) =>
    runInSpan(span, () => work(span)),
  );
}

/**
 * Runs `work` in a span named `name`, a child of the active span (internal, in this process):
 * a step worth seeing on its own in a trace, e.g. a tool run after waiting for a slot. Records
 * a thrown error; always ends. Without a started SDK a cheap no-op.
 */
export async function inSpan<T>(
  name: string,
  work: () => Promise<T>,
  attributes: Record<string, string | number> = {},
): Promise<T> {
  return tracer().startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, (span) =>
    runInSpan(span, work),
  );
}

/** Runs `work` in the started `span`: records a thrown error on it; always ends it. */
async function runInSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
