/** Builds the database proxy's express app from settings; opens nothing until a request comes. */
import { createMetrics, createService, type Logger, type Metrics } from '@pelita/kit';
import type { Express } from 'express';
import type { Settings } from './config';
import { PoolRegistry } from './connection/pool-registry';
import { DatabaseAccess } from './database-access';
import type { Session } from './engines/engine';
import { createMysqlEngine } from './engines/mysql/mysql-engine';
import { createPostgresEngine } from './engines/postgres/postgres-engine';
import { errorBody } from './errors';
import { registerMetrics } from './metrics';
import { checkConnectionRoute } from './routes/check-connection';
import { executeRoute } from './routes/execute';
import { ErrorBody } from './routes/schemas';
import { tablesRoute } from './routes/tables';

export type AppSettings = Omit<Settings, 'PORT' | 'SHUTDOWN_TIMEOUT_MS'>;

export interface AppDependencies {
  settings: AppSettings;
  logger: Logger;
  metrics?: Metrics;
}

export interface DbProxyApp {
  app: Express;
  /** Closes the pooled connections; run on shutdown. */
  close: () => Promise<void>;
}

export function createApp({
  settings,
  logger,
  metrics = createMetrics(),
}: AppDependencies): DbProxyApp {
  const limits = {
    connectTimeoutMs: settings.CONNECT_TIMEOUT_MS,
    statementTimeoutMs: settings.STATEMENT_TIMEOUT_MS,
  };
  const pools = new PoolRegistry<Session>(settings.POOL_MAX_TARGETS);
  const databases = new DatabaseAccess({
    engines: { postgresql: createPostgresEngine(limits), mysql: createMysqlEngine(limits) },
    pools,
    allowlist: settings.ALLOWED_DB_HOSTS,
    metrics: registerMetrics(metrics.registry, pools),
    ...limits,
    maxRows: settings.MAX_ROWS,
    readOnly: settings.READ_ONLY,
    poolMaxPerTarget: settings.POOL_MAX_PER_TARGET,
    poolIdleMs: settings.POOL_IDLE_MS,
  });
  const app = createService({
    name: 'db-proxy',
    description:
      'Runs one SQL statement on PostgreSQL, MariaDB or MySQL with the connection parameters ' +
      'of the x-db-* headers, and returns the rows as JSON.',
    logger,
    metrics,
    bodyLimit: settings.BODY_LIMIT,
    errorBody,
    errorSchema: ErrorBody,
    routes: [checkConnectionRoute(databases), tablesRoute(databases), executeRoute(databases)],
  });
  return { app, close: () => databases.close() };
}
