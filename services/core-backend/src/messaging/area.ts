/**
 * The messaging area: the WhatsApp bridge that answers. Meta's webhook stores each message in
 * the outbox (`webhooks.ts`), and the outbox worker answers it as the integration's app key and
 * sends the reply through the Cloud API (`outbox-worker.ts`).
 */
import type { Logger } from '@pelita/kit';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { AppKeys } from '../app-keys/app-keys';
import type { Area } from '../area';
import type { KeySessions } from '../chats/key-sessions';
import type { Settings } from '../config';
import type { Integrations } from '../workspace-config/integrations';
import type { MessagingBridge } from '../workspace-config/messaging-bridge';
import { createOutboxRepository } from './outbox-repository';
import { createOutboxWorker } from './outbox-worker';
import { webhookRoutes } from './routes';
import { createWebhooks, senderCount } from './webhooks';

export function messagingArea(deps: {
  pool: pg.Pool;
  redis: Redis;
  integrations: Integrations;
  bridge: MessagingBridge;
  appKeys: AppKeys;
  keySessions: KeySessions;
  logger: Logger;
  registry: Registry;
  settings: Pick<
    Settings,
    | 'WHATSAPP_RATE_LIMIT'
    | 'WHATSAPP_RATE_WINDOW_SECONDS'
    | 'WHATSAPP_MAX_ATTEMPTS'
    | 'WHATSAPP_RETRY_MS'
    | 'WHATSAPP_POLL_MS'
    | 'IDLE_POLL_MAX_MS'
    | 'WHATSAPP_CONCURRENCY'
  >;
}): Area {
  const { settings } = deps;
  const outbox = createOutboxRepository(deps.pool);
  const worker = createOutboxWorker({
    outbox,
    integrations: deps.integrations,
    appKeys: deps.appKeys,
    keySessions: deps.keySessions,
    bridge: deps.bridge,
    logger: deps.logger,
    registry: deps.registry,
    maxAttempts: settings.WHATSAPP_MAX_ATTEMPTS,
    retryMs: settings.WHATSAPP_RETRY_MS,
    pollMs: settings.WHATSAPP_POLL_MS,
    idlePollMaxMs: settings.IDLE_POLL_MAX_MS,
    concurrency: settings.WHATSAPP_CONCURRENCY,
  });
  const webhooks = createWebhooks({
    integrations: deps.integrations,
    outbox,
    senderCount: senderCount(deps.redis, settings.WHATSAPP_RATE_WINDOW_SECONDS),
    rateLimit: settings.WHATSAPP_RATE_LIMIT,
    wake: () => worker.wake(),
  });
  return {
    routes: webhookRoutes({ webhooks }),
    start: () => worker.start(),
    stop: () => worker.stop(),
  };
}
