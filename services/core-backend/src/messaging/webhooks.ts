/**
 * Meta's webhook of one integration (`/webhooks/whatsapp/:integrationId`): the subscription
 * handshake, and deliveries — each checked against the integration's app secret over the raw
 * bytes before anything in it is read, each new message stored in the outbox (a retried
 * delivery finds its message there and adds nothing), the sender's rate counted, and the worker
 * woken. The answer is produced after the webhook has answered: Meta expects a 200 fast and
 * retries otherwise.
 */
import { HttpError } from '@pelita/kit';
import type { Redis } from 'ioredis';
import { countInWindow } from '../workspace-config/fixed-window';
import type { Integrations } from '../workspace-config/integrations';
import type { OutboxRepository, ReplyKind } from './outbox-repository';
import { inboundMessages, type InboundMessage } from './webhook-payload';
import { sameText, signatureMatches } from './webhook-signature';

export interface Handshake {
  mode: string | undefined;
  verifyToken: string | undefined;
  challenge: string | undefined;
}

/** Counts one message of a sender; the number it is in the sender's window. */
export type SenderCount = (integrationId: string, sender: string) => Promise<number>;

export function senderCount(redis: Redis, windowSeconds: number): SenderCount {
  return async (integrationId, sender) =>
    (await countInWindow(redis, `core:whatsapp-senders:${integrationId}:${sender}`, windowSeconds))
      .count;
}

export function createWebhooks(deps: {
  integrations: Pick<Integrations, 'receiver'>;
  outbox: Pick<OutboxRepository, 'has' | 'insert'>;
  senderCount: SenderCount;
  /** Messages one sender may send in a window; the first past it gets one "slow down". */
  rateLimit: number;
  /** Tells the worker there is work. */
  wake: () => void;
}) {
  /** What the message gets: its answer within the limit, one note past it, then nothing. */
  async function replyKindOf(integrationId: string, message: InboundMessage): Promise<ReplyKind> {
    const count = await deps.senderCount(integrationId, message.from);
    if (count > deps.rateLimit) return count === deps.rateLimit + 1 ? 'slow_down' : 'none';
    return message.type === 'text' && message.text?.trim() ? 'answer' : 'text_only';
  }

  return {
    /** The challenge to echo when the handshake names this integration's verify token; 403 else. */
    async verify(integrationId: string, handshake: Handshake): Promise<string> {
      const receiver = await deps.integrations.receiver(integrationId);
      const { mode, verifyToken, challenge } = handshake;
      if (
        mode !== 'subscribe' ||
        verifyToken === undefined ||
        challenge === undefined ||
        !sameText(verifyToken, receiver.verifyToken)
      ) {
        throw new HttpError(403, 'verification_failed', 'The verify token does not match');
      }
      return challenge;
    },

    /**
     * Stores the delivery's new messages (401 unless its signature is the app secret's); how
     * many were new, how many were seen before, and how many status events it carried.
     */
    async receive(
      integrationId: string,
      rawBody: Buffer | undefined,
      signature: string | undefined,
    ): Promise<{ stored: number; duplicates: number; statuses: number }> {
      const receiver = await deps.integrations.receiver(integrationId);
      if (!signatureMatches(rawBody, signature, receiver.appSecret)) {
        throw new HttpError(
          401,
          'invalid_signature',
          'X-Hub-Signature-256 is missing or not the app secret’s',
        );
      }
      let payload: unknown;
      try {
        payload = JSON.parse(rawBody!.toString('utf8'));
      } catch {
        throw new HttpError(400, 'invalid_body', 'The delivery is not JSON');
      }
      const { messages, statuses } = inboundMessages(payload, receiver.phoneNumberId);
      let stored = 0;
      for (const message of messages) {
        // Checked before counting: the sender's retries of one message count once.
        if (await deps.outbox.has(integrationId, message.id)) continue;
        const inserted = await deps.outbox.insert({
          integrationId,
          workspaceId: receiver.workspaceId,
          waMessageId: message.id,
          sender: message.from,
          messageType: message.type,
          body: message.text,
          replyKind: await replyKindOf(integrationId, message),
        });
        if (inserted) stored += 1;
      }
      if (stored > 0) deps.wake();
      return { stored, duplicates: messages.length - stored, statuses };
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
