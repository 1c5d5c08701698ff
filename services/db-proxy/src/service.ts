/**
 * Puts the database proxy together from its settings: engines, the pool registry, the access
 * layer, the app. Nothing connects until a request comes; `stop` closes the pooled connections.
 */
import { createMetrics, type Logger, type Service } from '@pelita/kit';
import { createApp } from './app';
import type { Settings } from './config';
import { hostPolicy } from './connection/host-allowlist';
import { PoolRegistry } from './connection/pool-registry';
import { DatabaseAccess } from './database-access';
import type { Session } from './engines/engine';
import { createEngine } from './engines/driver-session';
import { openMysqlSession } from './engines/mysql/mysql-engine';
import { openPostgresSession } from './engines/postgres/postgres-engine';
import { registerMetrics } from './metrics';
import { registerSessionResets } from './session-metrics';

export function createDbProxyService(settings: Settings, logger: Logger): Service {
  const metrics = createMetrics();
  const limits = {
    connectTimeoutMs: settings.CONNECT_TIMEOUT_MS,
    statementTimeoutMs: settings.STATEMENT_TIMEOUT_MS,
  };
  const pools = new PoolRegistry<Session>(settings.POOL_MAX_TARGETS);
  const databases = new DatabaseAccess({
    engines: {
      postgresql: createEngine(openPostgresSession, limits, settings.SESSION_RESET),
      mysql: createEngine(openMysqlSession, limits, settings.SESSION_RESET),
    },
    pools,
    allowlist: hostPolicy(settings.ALLOWED_DB_HOSTS, settings.ALLOW_ANY_DB_HOST),
    metrics: registerMetrics(metrics.registry, pools),
    sessionResets: registerSessionResets(metrics.registry),
    ...limits,
    maxRows: settings.MAX_ROWS,
    readOnly: settings.READ_ONLY,
    poolMaxPerTarget: settings.POOL_MAX_PER_TARGET,
    poolIdleMs: settings.POOL_IDLE_MS,
  });
  const app = createApp({
    logger,
    metrics,
    databases,
    bodyLimit: settings.BODY_LIMIT,
    serviceToken: settings.PROXY_SERVICE_TOKEN,
  });
  return {
    app,
    start: () => Promise.resolve(),
    stop: () => databases.close(),
  };
}
