/** Builds the office converter's express app from its dependencies; no listening, no environment reads. */
import { createService, type Logger, type Metrics } from '@pelita/kit';
import type { Express } from 'express';
import { conversionRoutes, type ConversionRoutesDeps } from './routes/conversions';

export interface AppDeps extends ConversionRoutesDeps {
  logger: Logger;
  metrics: Metrics;
}

export function createApp(deps: AppDeps): Express {
  return createService({
    name: 'office-converter',
    description:
      'Office files and images to PDF (LibreOffice headless, one private profile per run, with a ' +
      'time limit), and PDFs joined into one.',
    logger: deps.logger,
    metrics: deps.metrics,
    routes: conversionRoutes(deps),
  });
}
