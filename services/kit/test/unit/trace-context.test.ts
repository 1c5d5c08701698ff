/**
 * A trace continued across a queue message: the consumer's span is a child of the producer's,
 * and without a traceparent the consumer starts a trace of its own.
 */
import { SpanKind, trace } from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { currentTraceparent, inSpan, inTraceOf } from '../../src/trace-context';

const exporter = new tracing.InMemorySpanExporter();
const provider = new node.NodeTracerProvider({
  spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
});

beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});
beforeEach(() => exporter.reset());

describe('trace context across a queue', () => {
  it('is undefined outside a span', () => {
    expect(currentTraceparent()).toBeUndefined();
  });

  it('continues the producer trace in the consumer', async () => {
    const traceparent = trace.getTracer('test').startActiveSpan('request', (span) => {
      const value = currentTraceparent();
      span.end();
      return value;
    });
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    await inTraceOf(traceparent, 'ocr-worker task', () => Promise.resolve());

    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'request');
    const task = spans.find((span) => span.name === 'ocr-worker task');
    expect(task?.spanContext().traceId).toBe(request?.spanContext().traceId);
    expect(task?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
  });

  it('starts a new trace without a traceparent and records a thrown error', async () => {
    await expect(
      inTraceOf(undefined, 'lonely', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('lonely');
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.status.code).toBe(2);
    expect(span?.events.map((event) => event.name)).toContain('exception');
  });

  it('makes the consumer span a CONSUMER unless told otherwise', async () => {
    await inTraceOf(undefined, 'taken', () => Promise.resolve());
    await inTraceOf(undefined, 'sent', () => Promise.resolve(), { kind: SpanKind.CLIENT });
    const spans = exporter.getFinishedSpans();
    expect(spans.find((span) => span.name === 'taken')?.kind).toBe(SpanKind.CONSUMER);
    expect(spans.find((span) => span.name === 'sent')?.kind).toBe(SpanKind.CLIENT);
  });

  it('starts a new trace without a traceparent even inside another span', async () => {
    await trace.getTracer('test').startActiveSpan('previous message', async (span) => {
      await inTraceOf(undefined, 'next message', () => Promise.resolve());
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    const previous = spans.find((span) => span.name === 'previous message');
    const next = spans.find((span) => span.name === 'next message');
    expect(next?.parentSpanContext).toBeUndefined();
    expect(next?.spanContext().traceId).not.toBe(previous?.spanContext().traceId);
  });

  it('links the other messages of a batch, once each, never the parent', async () => {
    const traceparents = ['a', 'b', 'c'].map((name) =>
      trace.getTracer('test').startActiveSpan(name, (span) => {
        const value = currentTraceparent();
        span.end();
        return value;
      }),
    );
    const [first, second, third] = traceparents;
    await inTraceOf(first, 'batch', () => Promise.resolve(), {
      links: [first, second, undefined, third, second, 'not-a-traceparent'],
    });
    const batch = exporter.getFinishedSpans().find((span) => span.name === 'batch');
    expect(batch?.parentSpanContext?.spanId).toBe(first?.split('-')[2]);
    expect(batch?.links.map((link) => link.context.spanId)).toEqual([
      second?.split('-')[2],
      third?.split('-')[2],
    ]);
  });

  it('runs a step in an internal child span of the active one, recording a thrown error', async () => {
    await trace.getTracer('test').startActiveSpan('request', async (span) => {
      await inSpan('step', () => Promise.resolve(), { 'step.kind': 'tool' });
      await expect(
        inSpan('broken step', () => Promise.reject(new Error('tool died'))),
      ).rejects.toThrow('tool died');
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'request');
    const step = spans.find((span) => span.name === 'step');
    const broken = spans.find((span) => span.name === 'broken step');
    expect(step?.kind).toBe(SpanKind.INTERNAL);
    expect(step?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(step?.attributes).toMatchObject({ 'step.kind': 'tool' });
    expect(broken?.status.code).toBe(2);
  });
});
