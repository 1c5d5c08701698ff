/** Builds the database proxy's express app from its dependencies; no listening, no environment reads. */
import { createService, requireServiceToken, type Logger, type Metrics } from '@pelita/kit';
import type { Express } from 'express';
import type { DatabaseAccess } from './database-access';
import { errorBody } from './errors';
import { checkConnectionRoute } from './routes/check-connection';
import { executeRoute } from './routes/execute';
import { ErrorBody } from './routes/schemas';
import { tablesRoute } from './routes/tables';

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  databases: DatabaseAccess;
  bodyLimit: string;
  /** Callers must present it (PROXY_SERVICE_TOKEN); unset: no caller authentication. */
  serviceToken?: string;
}

export function createApp({
  logger,
  metrics,
  databases,
  bodyLimit,
  serviceToken,
}: AppDeps): Express {
  return createService({
    name: 'db-proxy',
    description:
      'Runs one SQL statement on PostgreSQL, MariaDB or MySQL with the connection parameters ' +
      'of the x-db-* headers, and returns the rows as JSON.',
    logger,
    metrics,
    bodyLimit,
    errorBody,
    errorSchema: ErrorBody,
    // Checked before the x-db-* headers: a caller without the token reaches no database.
    ...(serviceToken === undefined ? {} : { guard: requireServiceToken(serviceToken) }),
    routes: [checkConnectionRoute(databases), tablesRoute(databases), executeRoute(databases)],
  });
}
