/**
 * What a WhatsApp Business Cloud API webhook delivers (`object: whatsapp_business_account`):
 * `entry[].changes[]` with `field: messages`, whose `value` holds the number it is for
 * (`metadata.phone_number_id`), the users' `messages[]` (`id`, `from`, `type`, `text.body` for
 * text) and the `statuses[]` of messages sent (sent, delivered, read, failed), which need no
 * answer. Anything else in a delivery is left alone; a body that is not such a delivery is 400.
 */
import { badRequest } from '@pelita/kit';
import { z } from 'zod';

export interface InboundMessage {
  /** Meta's message id (`wamid...`): a retried delivery repeats it. */
  id: string;
  /** The sender's WhatsApp id (their number, digits only). */
  from: string;
  /** `text`, `image`, `audio`, `sticker`, `location`, ... */
  type: string;
  /** The text of a `text` message. */
  text: string | undefined;
}

const Message = z.object({
  id: z.string().min(1).max(500),
  from: z.string().min(1).max(100),
  type: z.string().min(1).max(50),
  text: z.object({ body: z.string() }).optional(),
});
const Value = z.object({
  metadata: z.object({ phone_number_id: z.string() }).optional(),
  messages: z.array(z.unknown()).optional(),
  statuses: z.array(z.unknown()).optional(),
});
const Delivery = z.object({
  object: z.string(),
  entry: z.array(
    z.object({ changes: z.array(z.object({ field: z.string(), value: z.unknown() })) }),
  ),
});

/**
 * The messages a delivery brings for the phone number `phoneNumberId` (another number of the same
 * app is not this integration's), and how many status events it held.
 */
export function inboundMessages(
  payload: unknown,
  phoneNumberId: string,
): { messages: InboundMessage[]; statuses: number } {
  const delivery = Delivery.safeParse(payload);
  if (!delivery.success || delivery.data.object !== 'whatsapp_business_account') {
    throw badRequest('Not a WhatsApp Business Account webhook delivery');
  }
  const messages: InboundMessage[] = [];
  let statuses = 0;
  for (const change of delivery.data.entry.flatMap((entry) => entry.changes)) {
    const value = Value.safeParse(change.value);
    if (change.field !== 'messages' || !value.success) continue;
    if (value.data.metadata?.phone_number_id !== phoneNumberId) continue;
    statuses += value.data.statuses?.length ?? 0;
    for (const raw of value.data.messages ?? []) {
      const message = Message.safeParse(raw);
      // A message of a shape not known here is skipped, not a reason to refuse its neighbours.
      if (!message.success) continue;
      const { id, from, type, text } = message.data;
      messages.push({ id, from, type, text: type === 'text' ? text?.body : undefined });
    }
  }
  return { messages, statuses };
}
