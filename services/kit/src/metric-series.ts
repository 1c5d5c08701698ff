/**
 * A service's own Prometheus series, declared as one table (key → kind, name, help, labels,
 * buckets) and registered on one registry. The table is what differs between services; how a
 * series is built and registered is written here once.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

interface SeriesSpec<L extends string> {
  name: string;
  help: string;
  labels?: readonly L[];
}
export interface CounterSpec<L extends string> extends SeriesSpec<L> {
  kind: 'counter';
}
export interface GaugeSpec<L extends string> extends SeriesSpec<L> {
  kind: 'gauge';
}
export interface HistogramSpec<L extends string> extends SeriesSpec<L> {
  kind: 'histogram';
  buckets: number[];
}
type AnySpec = CounterSpec<string> | GaugeSpec<string> | HistogramSpec<string>;

/** The series a spec declares, typed by its labels (a series without labels takes none). */
type SeriesOf<S> =
  S extends HistogramSpec<infer L>
    ? Histogram<L>
    : S extends GaugeSpec<infer L>
      ? Gauge<L>
      : S extends CounterSpec<infer L>
        ? Counter<L>
        : never;

export type DeclaredSeries<T extends Record<string, AnySpec>> = { [K in keyof T]: SeriesOf<T[K]> };

/** Builds every series of the table on `registry`, under the table's keys. */
export function declareSeries<const T extends Record<string, AnySpec>>(
  registry: Registry,
  table: T,
): DeclaredSeries<T> {
  const registers = [registry];
  const build = (spec: AnySpec) => {
    const common = { name: spec.name, help: spec.help, labelNames: spec.labels ?? [], registers };
    if (spec.kind === 'histogram') return new Histogram({ ...common, buckets: spec.buckets });
    return spec.kind === 'gauge' ? new Gauge(common) : new Counter(common);
  };
  return Object.fromEntries(
    Object.entries(table).map(([key, spec]) => [key, build(spec)]),
  ) as DeclaredSeries<T>;
}
