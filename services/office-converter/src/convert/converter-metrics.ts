/** The converter's own metrics, beside the kit's request metrics. */
import { declareSeries } from '@pelita/kit';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type ConversionMethod = 'libreoffice' | 'pandoc' | 'pdf-lib' | 'docx-text' | 'merge';

export interface ConverterMetrics {
  conversions: Counter<'method' | 'outcome'>;
  duration: Histogram<'method'>;
  waiting: Gauge;
}

export function createConverterMetrics(registry: Registry): ConverterMetrics {
  return declareSeries(registry, {
    conversions: {
      kind: 'counter',
      name: 'office_converter_conversions_total',
      help: 'Conversions by method (libreoffice, pandoc, pdf-lib, docx-text, merge) and outcome (ok, failed)',
      labels: ['method', 'outcome'],
    },
    duration: {
      kind: 'histogram',
      name: 'office_converter_conversion_duration_seconds',
      help: 'Time one conversion took, by method',
      labels: ['method'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    },
    waiting: {
      kind: 'gauge',
      name: 'office_converter_queue_depth',
      help: 'LibreOffice conversions waiting for a free run',
    },
  });
}
