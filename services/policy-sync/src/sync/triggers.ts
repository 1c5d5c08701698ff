/**
 * Trigger fan-out between replicas over Redis pub/sub: the replica a caller reaches publishes the
 * sources to sync, every other replica hears it and syncs too. A message lost while a replica was
 * disconnected is made up for by a full sync when its subscription comes back, and by the
 * periodic resync.
 *
 * A trigger may carry a request id: each replica answers it with an acknowledgement once its own
 * sync ended (`ok` when its OPA holds the new data), so the replica the caller reached can say
 * how many replicas — counted as the channel's subscribers — hold the change.
 */
import type { Logger } from '@pelita/kit';
import { createRedisClient, type RedisSettings } from '@pelita/kit/redis-client';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Source } from './policy-data';

export interface TriggerBus {
  /** Connects and subscribes; resolves once subscribed, or once the first attempt failed. */
  start(): Promise<void>;
  /** Asks every other replica to sync `sources`; with `request`, each acknowledges it. */
  publish(sources: readonly Source[], request?: string): Promise<void>;
  /** Tells the replica that published `request` how this replica's sync of it ended. */
  acknowledge(request: string, ok: boolean): Promise<void>;
  /**
   * Starts counting the acknowledgements of `request` (call before publishing it: a fast peer
   * may answer first); `wait` resolves with the successful ones once `expected` peers answered
   * or `timeoutMs` passed.
   */
  collectAcks(request: string): { wait(expected: number, timeoutMs: number): Promise<number> };
  /** Replicas listening on the channel (this one included): Redis's subscriber count. */
  countReplicas(): Promise<number>;
  /** Resolves when Redis answers. */
  checkHealth(): Promise<void>;
  close(): Promise<void>;
}

export interface TriggerBusOptions {
  /** REDIS_PASSWORD, when set, overrides a password in REDIS_URL. */
  redis: RedisSettings;
  channel: string;
  /** This replica's id: its own messages come back to it and are skipped. */
  instanceId: string;
  logger: Logger;
  /** `request` set: the publisher waits for this replica's `acknowledge`. */
  onTrigger: (sources: Source[], request: string | undefined) => void;
  /**
   * Subscribed after a time without subscription (a lost connection, or Redis unreachable at
   * start): triggers may have been missed.
   */
  onResubscribed: () => void;
}

const TriggerMessage = z.object({
  origin: z.string(),
  sources: z.array(z.enum(['user_roles', 'role_grants'])).min(1),
  request: z.string().max(100).optional(),
});
const AckMessage = z.object({ origin: z.string(), ack: z.string().max(100), ok: z.boolean() });

interface AckCounter {
  ok: number;
  /** Acknowledgements received, failed ones included: the wait ends when every peer answered. */
  answered: number;
  expected: number;
  done?: () => void;
}

export function createTriggerBus(options: TriggerBusOptions): TriggerBus {
  const { channel, instanceId, logger } = options;
  // Publishing fails at once while Redis is away instead of queueing: the caller's own sync
  // must not wait for it, and the periodic resync reaches the other replicas anyway.
  const publisher = createRedisClient(options.redis, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
  });
  // Subscribing again on every `ready` (rather than ioredis' auto-resubscribe) also covers a
  // Redis that was unreachable when this replica started.
  const subscriber = createRedisClient(options.redis, {
    lazyConnect: true,
    autoResubscribe: false,
  });

  const acks = new Map<string, AckCounter>();
  let subscribed = false;
  let missedTriggers = false;
  let resolveFirstSubscription: () => void = () => undefined;
  const firstSubscription = new Promise<void>((resolve) => (resolveFirstSubscription = resolve));

  for (const client of [publisher, subscriber]) {
    // ioredis retries with back-off and reports every failed attempt here; the transitions
    // (lost, restored) are what the log needs, at warn and info.
    client.on('error', (err: Error) => logger.debug({ err }, 'Redis connection error'));
  }

  subscriber.on('close', () => {
    if (!subscribed) return;
    subscribed = false;
    missedTriggers = true;
    logger.warn({ channel }, 'Redis connection lost; triggers of other replicas are missed');
  });

  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => {
        subscribed = true;
        if (missedTriggers) {
          missedTriggers = false;
          logger.info({ channel }, 'trigger subscription restored; catching up with a full sync');
          options.onResubscribed();
        }
        resolveFirstSubscription();
      },
      (err: unknown) => {
        // Tried again on the next `ready`; start-up goes on without the subscription.
        missedTriggers = true;
        logger.warn({ err, channel }, 'cannot subscribe to the trigger channel');
        resolveFirstSubscription();
      },
    );
  });

  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const parsed = parseMessage(message);
    if (!parsed) {
      logger.warn({ channel }, 'ignoring a malformed trigger message');
      return;
    }
    if (parsed.origin === instanceId) return;
    if ('ack' in parsed) {
      const counter = acks.get(parsed.ack);
      if (!counter) return;
      counter.answered += 1;
      if (parsed.ok) counter.ok += 1;
      if (counter.answered >= counter.expected) counter.done?.();
      return;
    }
    options.onTrigger(parsed.sources, parsed.request);
  });

  return {
    async start() {
      const connected = Promise.all([publisher.connect(), subscriber.connect()]);
      try {
        await connected;
        await firstSubscription;
      } catch (err) {
        // ioredis keeps reconnecting in the background; the `ready` handler subscribes then.
        missedTriggers = true;
        logger.warn({ err }, 'Redis unreachable at start; will keep trying');
      }
    },
    async publish(sources, request) {
      await publisher.publish(
        channel,
        JSON.stringify({ origin: instanceId, sources, ...(request ? { request } : {}) }),
      );
    },
    async acknowledge(request, ok) {
      await publisher.publish(channel, JSON.stringify({ origin: instanceId, ack: request, ok }));
    },
    collectAcks(request) {
      const counter: AckCounter = { ok: 0, answered: 0, expected: Number.POSITIVE_INFINITY };
      acks.set(request, counter);
      return {
        async wait(expected, timeoutMs) {
          counter.expected = expected;
          if (counter.answered < expected) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(finish, timeoutMs);
              function finish() {
                clearTimeout(timer);
                resolve();
              }
              counter.done = finish;
            });
          }
          acks.delete(request);
          return counter.ok;
        },
      };
    },
    async countReplicas() {
      const [, count] = (await publisher.pubsub('NUMSUB', channel)) as [string, number];
      return Number(count);
    },
    async checkHealth() {
      await publisher.ping();
    },
    async close() {
      subscribed = false; // a deliberate close is no lost connection
      await Promise.all([publisher, subscriber].map(closeClient));
    },
  };
}

function parseMessage(
  message: string,
): z.infer<typeof TriggerMessage> | z.infer<typeof AckMessage> | undefined {
  try {
    const json: unknown = JSON.parse(message);
    const ack = AckMessage.safeParse(json);
    if (ack.success) return ack.data;
    const result = TriggerMessage.safeParse(json);
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

async function closeClient(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}
