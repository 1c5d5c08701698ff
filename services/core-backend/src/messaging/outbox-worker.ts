/**
 * Works the bridge's outbox, WHATSAPP_CONCURRENCY messages at once: each loop leases the oldest
 * due message whose sender has no earlier one waiting (a sender's replies keep their order, and
 * each answer sees the exchange before it), produces its reply — the answer
 * through the same pipeline as rooms, as the integration's app key (its sources only), in the
 * sender's session `whatsapp:<integrationId>:<appKeyId>:<sender>` (another key: another
 * conversation, as its sources differ); or the "text only" / "slow down" note —
 * stores the reply's text, then sends it through the Cloud API within WHATSAPP_TIMEOUT.
 *
 * Once: a reply stored is sent, never asked again; a sent reply is recorded with the Cloud API's
 * id and its row leaves the outbox. A restart between question and answer finds the row
 * (released on a clean stop, its lease ended after a crash) and carries on from its state.
 * A send cut off mid-request by a stop cannot know whether Meta took it: that one reply may come
 * twice (the Cloud API takes no idempotency key). Failures that may pass (5xx, time-out, no
 * connection) are tried again with a doubling pause, a 429 after its Retry-After, up to
 * WHATSAPP_MAX_ATTEMPTS; others (a refused token, a revoked app key) fail at once. A failure is
 * visible: the row's `state`/`last_error`, `core_whatsapp_replies_total`, a log without the token.
 */
import {
  createIdleBackoff,
  declareSeries,
  errorMessage,
  HttpError,
  type Logger,
} from '@pelita/kit';
import type { Registry } from 'prom-client';
import type { AppKeys } from '../app-keys/app-keys';
import type { KeySessions } from '../chats/key-sessions';
import type { Integrations, Receiver } from '../workspace-config/integrations';
import { SendFailure, type MessagingBridge } from '../workspace-config/messaging-bridge';
import type { OutboxMessage, OutboxRepository } from './outbox-repository';

export const TEXT_ONLY_REPLY =
  'Sorry, I can only read text messages. Please send your question as text.';
export const SLOW_DOWN_REPLY =
  'You are sending messages faster than I can answer. Please wait a few minutes before asking again.';
const EMPTY_ANSWER_REPLY = 'Sorry, I have no answer to that.';

/** The sender's conversation: a session of the integration's app key. */
const senderSession = (receiver: Receiver, sender: string) =>
  `whatsapp:${receiver.id}:${receiver.appKeyId}:${sender}`;

/** A failure no other try will mend. */
class Permanent extends Error {}

export interface OutboxWorkerOptions {
  outbox: OutboxRepository;
  integrations: Pick<Integrations, 'receiver'>;
  appKeys: Pick<AppKeys, 'principal'>;
  keySessions: Pick<KeySessions, 'ask'>;
  bridge: Pick<MessagingBridge, 'sendText'>;
  logger: Logger;
  registry: Registry;
  maxAttempts: number;
  /** The pause after the first failed try; it doubles with each try after. */
  retryMs: number;
  /** The first loop's wait after a round that found nothing, doubling up to `idlePollMaxMs`. */
  pollMs: number;
  idlePollMaxMs: number;
  /** Messages worked on at once (one sender's always one after another). */
  concurrency: number;
  /** How long a lease lasts without a heartbeat (renewed every third of it). */
  leaseMs?: number;
}

export function createOutboxWorker(options: OutboxWorkerOptions) {
  const { outbox, logger } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const { replies } = declareSeries(options.registry, {
    replies: {
      kind: 'counter',
      name: 'core_whatsapp_replies_total',
      help: 'WhatsApp replies that ended, by kind (answer, text_only, slow_down) and outcome (sent, failed)',
      labels: ['kind', 'outcome'],
    },
  });
  let loops: Array<Promise<void>> = [];
  // The loops waiting for work; a webhook or a stop wakes them.
  const sleepers = new Set<() => void>();
  // Aborts the answers and sends under way on stop.
  let stopping = new AbortController();
  const backoff = createIdleBackoff(options.pollMs, options.idlePollMaxMs);

  async function receiverOf(message: OutboxMessage): Promise<Receiver> {
    try {
      return await options.integrations.receiver(message.integration_id);
    } catch (err) {
      if (err instanceof HttpError && err.status === 404) {
        throw new Permanent(
          'the integration no longer receives (disabled, or its app key revoked)',
        );
      }
      throw err;
    }
  }

  /** The answer from the integration's sources, stored in the sender's session. */
  async function answer(message: OutboxMessage, receiver: Receiver) {
    const principal = await options.appKeys.principal(
      {
        id: receiver.appKeyId,
        workspaceId: receiver.workspaceId,
        createdBy: receiver.actingUserId,
      },
      {
        permission: 'chat',
        refused: () => new Permanent("the app key's maker may no longer chat in the workspace"),
      },
    );
    const key = { id: receiver.appKeyId, workspaceId: receiver.workspaceId, readsSessionsOf: [] };
    const started = await options.keySessions.ask(
      { key, principal },
      senderSession(receiver, message.sender),
      { question: message.body ?? '', signal: stopping.signal },
    );
    let text = '';
    for await (const delta of started.deltas) text += delta;
    const { message: stored } = await started.finished();
    return { text: text.trim() || EMPTY_ANSWER_REPLY, chatMessageId: stored.id };
  }

  async function reply(message: OutboxMessage, receiver: Receiver) {
    if (message.reply_kind === 'answer') return answer(message, receiver);
    const text = message.reply_kind === 'slow_down' ? SLOW_DOWN_REPLY : TEXT_ONLY_REPLY;
    return { text, chatMessageId: null };
  }

  async function work(message: OutboxMessage): Promise<void> {
    const receiver = await receiverOf(message);
    let text = message.reply;
    if (message.state === 'pending') {
      const made = await reply(message, receiver);
      await outbox.answered(message.id, made.text, made.chatMessageId);
      text = made.text;
    }
    if (stopping.signal.aborted) throw stopping.signal.reason;
    const replyId = await options.bridge.sendText(
      receiver.baseUrl,
      receiver.phoneNumberId,
      receiver.accessToken,
      { to: message.sender, text: text ?? '', replyTo: message.wa_message_id },
      stopping.signal,
    );
    await outbox.sent(message.id, replyId);
    replies.inc({ kind: message.reply_kind, outcome: 'sent' });
  }

  /** Records a failed try: given up, or tried again after a pause. */
  async function failed(message: OutboxMessage, err: unknown): Promise<void> {
    const attempts = message.attempts + 1;
    const retryAfter =
      err instanceof SendFailure
        ? err.retryAfterMs
        : err instanceof Permanent ||
            (err instanceof HttpError && err.status >= 400 && err.status < 500)
          ? undefined
          : 'backoff';
    const giveUp = retryAfter === undefined || attempts >= options.maxAttempts;
    const pauseMs = retryAfter === 'backoff' ? options.retryMs * 2 ** (attempts - 1) : retryAfter;
    const error = errorMessage(err).slice(0, 1000);
    logger.warn(
      {
        whatsappMessage: message.id,
        integration: message.integration_id,
        attempts,
        giveUp,
        err: error,
      },
      'a WhatsApp reply failed',
    );
    await outbox.failed(message.id, { giveUp, error, pauseSeconds: (pauseMs ?? 0) / 1000 });
    if (giveUp) replies.inc({ kind: message.reply_kind, outcome: 'failed' });
  }

  /** Keeps the lease while `work` runs. */
  async function holding(id: string, run: () => Promise<void>): Promise<void> {
    const heartbeat = setInterval(() => {
      outbox
        .renewLease(id, leaseMs / 1000)
        .catch((err: unknown) => logger.warn({ err: errorMessage(err) }, 'outbox heartbeat'));
    }, leaseMs / 3);
    try {
      await run();
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function runRound(): Promise<boolean> {
    let message: OutboxMessage | undefined;
    try {
      message = await outbox.lease(leaseMs / 1000);
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'could not lease a WhatsApp message');
      return false;
    }
    if (!message) return false;
    const leased = message;
    try {
      await holding(leased.id, () => work(leased));
    } catch (err) {
      if (stopping.signal.aborted) {
        // Not a failure of the message: the next start (or replica) takes it straight away.
        await outbox.release(leased.id).catch(() => undefined);
        return false;
      }
      await failed(leased, err).catch((e: unknown) =>
        logger.warn(
          { whatsappMessage: leased.id, err: errorMessage(e) },
          'could not record a failure',
        ),
      );
    }
    return true;
  }

  /** Waits until woken or stopped, or `ms` when given. */
  function idle(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      sleepers.add(done);
    });
  }
  const wakeAll = () => {
    backoff.reset();
    for (const wakeUp of [...sleepers]) wakeUp();
  };

  /**
   * One of the worker's loops: straight on while there is work. Idle, only the first looks again,
   * after a wait that grows while it finds nothing; the others sleep until a webhook or the first
   * finds work.
   */
  async function loop(first: boolean): Promise<void> {
    while (!stopping.signal.aborted) {
      if (await runRound()) wakeAll();
      else if (!stopping.signal.aborted) await idle(first ? backoff.idle() : undefined);
    }
  }

  return {
    start(): void {
      stopping = new AbortController();
      loops = Array.from({ length: options.concurrency }, (_, i) => loop(i === 0));
    },
    /** A webhook stored a message: look now rather than at the next poll. */
    wake: wakeAll,
    /** Stops, aborting the replies under way (their rows are released for the next start). */
    async stop(): Promise<void> {
      stopping.abort();
      wakeAll();
      await Promise.all(loops);
      loops = [];
    },
  };
}
