/** The converter's own metrics, beside the kit's request metrics. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type ConversionMethod = 'libreoffice' | 'pdf-lib' | 'docx-text' | 'merge';

export interface ConverterMetrics {
  conversions: Counter<'method' | 'outcome'>;
  duration: Histogram<'method'>;
  waiting: Gauge;
}

export function createConverterMetrics(registry: Registry): ConverterMetrics {
  return {
    conversions: new Counter({
      name: 'office_converter_conversions_total',
      help: 'Conversions by method (libreoffice, pdf-lib, docx-text, merge) and outcome (ok, failed)',
      labelNames: ['method', 'outcome'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'office_converter_conversion_duration_seconds',
      help: 'Time one conversion took, by method',
      labelNames: ['method'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    waiting: new Gauge({
      name: 'office_converter_queue_depth',
      help: 'LibreOffice conversions waiting for a free run',
      registers: [registry],
    }),
  };
}
