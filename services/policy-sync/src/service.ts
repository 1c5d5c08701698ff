/**
 * Puts the policy sync together from its settings: clients, the serialised sync, the trigger
 * fan-out, the app, and the background work (start-up sync, periodic resync, OPA watch).
 * Nothing runs until `start`; `main.ts` and the integration tests both build the service here.
 */
import { randomUUID } from 'node:crypto';
import { createMetrics, type Logger, type ReadinessCheck, type Service } from '@pelita/kit';
import { createApp } from './app';
import type { Settings } from './config';
import { createDataFile } from './sync/data-file';
import { createOpaClient } from './sync/opa-client';
import { startOpaWatch } from './sync/opa-watch';
import type { Periodic } from './sync/periodic';
import { ALL_SOURCES } from './sync/policy-data';
import { startResync } from './sync/resync';
import { createRoleDataClient } from './sync/role-data-client';
import { createPolicySync, type PolicySync } from './sync/sync';
import { createSyncMetrics } from './sync/sync-metrics';
import { createSyncOnRequest } from './sync/sync-on-request';
import { createTriggerBus } from './sync/triggers';

/**
 * `start` subscribes to triggers, restores OPA from the file, runs a full sync and starts the
 * timers; `stop` ends the timers and the subscription and waits for a running pass to end.
 */
export interface PolicySyncService extends Service {
  sync: PolicySync;
}

export function createPolicySyncService(settings: Settings, logger: Logger): PolicySyncService {
  const metrics = createMetrics();
  const opa = createOpaClient({
    baseUrl: settings.URL_OPA,
    timeoutMs: settings.OPA_TIMEOUT_MS,
    token: settings.OPA_TOKEN,
  });
  const sync = createPolicySync({
    roleData: createRoleDataClient({
      baseUrl: settings.URL_USER,
      timeoutMs: settings.USER_SERVICE_TIMEOUT_MS,
      token: settings.USER_SERVICE_TOKEN,
    }),
    dataFile: createDataFile(settings.POLICY_DATA_FILE),
    opa,
    metrics: createSyncMetrics(metrics.registry),
    logger,
  });
  // Outcomes of background syncs are logged and counted by the sync; nobody awaits them.
  const inBackground = (work: Promise<unknown>) => void work.catch(() => undefined);

  const bus = settings.REDIS_URL
    ? createTriggerBus({
        redis: { REDIS_URL: settings.REDIS_URL, REDIS_PASSWORD: settings.REDIS_PASSWORD },
        channel: settings.SYNC_CHANNEL,
        instanceId: randomUUID(),
        logger,
        onTrigger: (sources, request) => {
          const synced = sync.sync(sources, 'peer');
          inBackground(synced);
          // The replica that published `request` waits to know this OPA holds the change.
          if (request)
            inBackground(
              synced.then(
                () => bus?.acknowledge(request, true),
                () => bus?.acknowledge(request, false),
              ),
            );
        },
        onResubscribed: () => inBackground(sync.sync(ALL_SOURCES, 'reconnect')),
      })
    : undefined;

  const readiness: Record<string, ReadinessCheck> = { opa: () => opa.checkHealth() };
  if (bus) readiness.redis = () => bus.checkHealth();

  const app = createApp({
    logger,
    metrics,
    syncOnRequest: createSyncOnRequest(sync, bus, settings.PEER_CONFIRM_TIMEOUT_MS),
    serviceToken: settings.SYNC_SERVICE_TOKEN,
    readiness,
  });

  const timers: Periodic[] = [];
  let stopped = false;
  return {
    app,
    sync,
    async start() {
      if (!bus) logger.info('REDIS_URL not set: triggers reach this replica only');
      await bus?.start();
      // The seed's start: push the file OPA may be missing, then a full sync.
      await sync.verify('startup').catch(() => undefined);
      await sync.sync(ALL_SOURCES, 'startup').catch(() => undefined);
      if (stopped) return;
      for (const timer of [
        startResync(sync, settings.RESYNC_INTERVAL_MS),
        startOpaWatch(sync, settings.OPA_PROBE_INTERVAL_MS),
      ]) {
        if (timer) timers.push(timer);
      }
    },
    async stop() {
      stopped = true;
      for (const timer of timers.splice(0)) timer.stop();
      await bus?.close();
      await sync.idle();
    },
  };
}
