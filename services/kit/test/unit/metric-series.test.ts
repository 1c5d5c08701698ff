// A table of series becomes counters, gauges and histograms on the registry given, under its keys.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { declareSeries } from '../../src/metric-series';

describe('declareSeries', () => {
  it('builds each kind with its name, help and labels, registered on the registry given', async () => {
    const registry = new Registry();
    const series = declareSeries(registry, {
      calls: { kind: 'counter', name: 'demo_calls_total', help: 'Calls', labels: ['outcome'] },
      waiting: { kind: 'gauge', name: 'demo_waiting', help: 'Waiting' },
      duration: {
        kind: 'histogram',
        name: 'demo_duration_seconds',
        help: 'Duration',
        labels: ['stage'],
        buckets: [1, 5],
      },
    });
    expect(series.calls).toBeInstanceOf(Counter);
    expect(series.waiting).toBeInstanceOf(Gauge);
    expect(series.duration).toBeInstanceOf(Histogram);

    series.calls.inc({ outcome: 'ok' }, 2);
    series.waiting.set(3);
    series.duration.observe({ stage: 'read' }, 2);
    const text = await registry.metrics();
    expect(text).toContain('# HELP demo_calls_total Calls');
    expect(text).toContain('demo_calls_total{outcome="ok"} 2');
    expect(text).toContain('demo_waiting 3');
    expect(text).toContain('demo_duration_seconds_bucket{le="1",stage="read"} 0');
    expect(text).toContain('demo_duration_seconds_bucket{le="5",stage="read"} 1');
    expect(text).toContain('demo_duration_seconds_bucket{le="+Inf",stage="read"} 1');
  });

  it('refuses a label the table did not declare', () => {
    const registry = new Registry();
    const { calls } = declareSeries(registry, {
      calls: { kind: 'counter', name: 'demo_calls_total', help: 'Calls', labels: ['outcome'] },
    });
    // @ts-expect-error -- `stage` is not among the declared labels (the types say so too)
    expect(() => calls.inc({ stage: 'x' })).toThrow(/stage/);
  });
});
