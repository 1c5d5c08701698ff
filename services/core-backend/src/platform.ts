/**
 * The servers every area is given, built from the settings: the PostgreSQL pool (migrated at
 * start), Redis (the user service's sessions, the widget's visitor limits), the OpenSearch
 * client, the activity log and its index, and the metrics. The service hands these to the areas
 * and closes them last.
 */
import {
  createActivityLog,
  createActivityRepository,
  createMetrics,
  createOpenSearchClient,
  searchLayout,
  type Logger,
} from '@pelita/kit';
import { createRedisClient } from '@pelita/kit/redis-client';
import type { Settings } from './config';
import { createPool, migrateDatabase } from './db/database';

export function createPlatform(settings: Settings, logger: Logger) {
  const metrics = createMetrics();
  const pool = createPool(settings, { logger, registry: metrics.registry });
  const redis = createRedisClient(settings, { keyPrefix: settings.REDIS_KEY_PREFIX });
  const search = createOpenSearchClient(settings);
  const activity = createActivityRepository(
    settings.OPENSEARCH_URL,
    settings.INDEX_USER_ACTIVITY_LOG,
    settings.OPENSEARCH_USERNAME && settings.OPENSEARCH_PASSWORD
      ? { username: settings.OPENSEARCH_USERNAME, password: settings.OPENSEARCH_PASSWORD }
      : undefined,
    searchLayout(settings),
  );
  const activityLog = createActivityLog({
    repository: activity,
    logger,
    registry: metrics.registry,
    // Calls with an app key or the service token are a program's, not a user's action.
    // The relayed logins are the user service's to record; widget visitors and Meta's webhooks
    // are not users.
    ignore: (route) =>
      /^\/(open-api|v1\/api\/open-api|utils|auth|embed|webhooks)\//.test(route.path),
  });

  return {
    metrics,
    pool,
    redis,
    search,
    /** The activity log's index (tests refresh it to read their writes). */
    activity,
    activityLog,
    readiness: {
      postgres: () => pool.query('select 1'),
      redis: () => redis.ping(),
    },
    /** Applies the migrations and makes sure the activity log's index exists. */
    async start(): Promise<void> {
      const applied = await migrateDatabase(pool, settings.DATABASE_SCHEMA);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      await activity.ensureIndex();
    },
    async stop(): Promise<void> {
      await pool.end();
      redis.disconnect();
      await search.close();
      await activity.close();
    },
  };
}
