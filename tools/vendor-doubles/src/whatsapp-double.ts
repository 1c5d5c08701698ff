/**
 * The WhatsApp Business Cloud API, both ways. As Meta's Graph API it answers
 * `GET /{version}/{phone_number_id}` (the number's details) and takes replies at
 * `POST /{version}/{phone_number_id}/messages` (Bearer access token checked: Meta's 401
 * `OAuthException` otherwise; a text reply's shape checked: 400 otherwise), recording every
 * reply it took in `replies`. As Meta's webhook sender it delivers users' messages and status
 * events to a URL, signed with `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app
 * secret), and runs the subscription handshake.
 *
 * Faults for `/messages` (`fault(...)`, each for the next `times` requests): `status` (a 5xx),
 * `rate-limit` (429 with `Retry-After`), `slow` (answers after `ms`; a reply whose sender gave up
 * waiting is not recorded, as a request the sender abandoned is not a reply it made).
 */
import { createHmac } from 'node:crypto';
import { startDoubleServer, type DoubleServer } from './double-server';

export interface WhatsappReply {
  phoneNumberId: string;
  to: string;
  text: string;
  /** The message answered (`context.message_id`), when the reply names one. */
  replyTo: string | undefined;
  /** The id the double gave it (`wamid.out.<n>`). */
  id: string;
}

export type WhatsappFault =
  | { kind: 'status'; status: number; times?: number }
  | { kind: 'rate-limit'; retryAfterSeconds: number; times?: number }
  | { kind: 'slow'; ms: number; times?: number };

export interface WhatsappDoubleOptions {
  accessToken: string;
  appSecret: string;
  phoneNumberId: string;
  /** The Graph API version in the paths (`v21.0`). */
  version?: string;
}

export interface WhatsappDouble extends DoubleServer {
  /** `{url}/{version}`: the integration's `base_url`. */
  baseUrl: string;
  /** Every reply taken, oldest first. */
  replies: WhatsappReply[];
  fault(fault: WhatsappFault): void;
  clearFaults(): void;
  /** POSTs `delivery` to `url` signed with the app secret (or `signature` as given). */
  deliver(url: string, delivery: unknown, options?: { signature?: string }): Promise<Response>;
  /** The handshake Meta's dashboard runs when the callback URL is saved. */
  verify(url: string, verifyToken: string, challenge: string): Promise<Response>;
  /** A delivery of one user's text message. */
  textMessage(from: string, text: string, id?: string): WebhookDelivery;
  /** A delivery of one user's image (any type but text gets the "text only" note). */
  imageMessage(from: string, id?: string): WebhookDelivery;
  /** A delivery of a status event (`delivered`) of a message sent. */
  statusEvent(messageId: string): WebhookDelivery;
}

export interface WebhookDelivery {
  object: 'whatsapp_business_account';
  entry: Array<{ id: string; changes: Array<{ field: 'messages'; value: object }> }>;
  /** The user message's id, when it holds one. */
  messageId?: string;
}

export async function startWhatsappDouble(options: WhatsappDoubleOptions): Promise<WhatsappDouble> {
  const version = options.version ?? 'v21.0';
  const replies: WhatsappReply[] = [];
  const faults: Array<WhatsappFault & { remaining: number }> = [];
  let sequence = 0;

  const { server } = await startDoubleServer((app) => {
    app.use(`/${version}/:phoneNumberId`, function bearer(req, res, next) {
      if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
        res.status(401).json({
          error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 },
        });
        return;
      }
      if (req.params.phoneNumberId !== options.phoneNumberId) {
        res.status(400).json({
          error: { message: 'Unsupported post request.', type: 'GraphMethodException', code: 100 },
        });
        return;
      }
      next();
    });
    app.get(`/${version}/:phoneNumberId`, (req, res) => {
      res.json({
        display_phone_number: '+1 555-000-1111',
        verified_name: 'Pelita Desk',
        id: req.params.phoneNumberId,
      });
    });
    app.post(`/${version}/:phoneNumberId/messages`, async (req, res) => {
      const fault = faults.find((f) => f.remaining > 0);
      if (fault) fault.remaining -= 1;
      if (fault?.kind === 'status') {
        res.status(fault.status).json({ error: { message: 'Service temporarily unavailable' } });
        return;
      }
      if (fault?.kind === 'rate-limit') {
        res.setHeader('retry-after', String(fault.retryAfterSeconds));
        res.status(429).json({
          error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429 },
        });
        return;
      }
      if (fault?.kind === 'slow') {
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        if (res.destroyed || req.socket.destroyed) return;
      }
      const body = (req.body ?? {}) as {
        messaging_product?: unknown;
        to?: unknown;
        type?: unknown;
        text?: { body?: unknown };
        context?: { message_id?: unknown };
      };
      const text = body.text?.body;
      if (
        body.messaging_product !== 'whatsapp' ||
        typeof body.to !== 'string' ||
        body.type !== 'text' ||
        typeof text !== 'string' ||
        text === '' ||
        text.length > 4096
      ) {
        res.status(400).json({
          error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 },
        });
        return;
      }
      sequence += 1;
      const id = `wamid.out.${sequence}`;
      const replyTo = body.context?.message_id;
      replies.push({
        phoneNumberId: options.phoneNumberId,
        to: body.to,
        text,
        replyTo: typeof replyTo === 'string' ? replyTo : undefined,
        id,
      });
      res.json({
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: body.to }],
        messages: [{ id }],
      });
    });
  });

  let incoming = 0;
  const wrap = (value: object, messageId?: string): WebhookDelivery => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA-DOUBLE',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: '15550001111',
                phone_number_id: options.phoneNumberId,
              },
              ...value,
            },
          },
        ],
      },
    ],
    ...(messageId ? { messageId } : {}),
  });
  const nextId = () => `wamid.in.${Date.now()}.${(incoming += 1)}`;
  const timestamp = () => String(Math.floor(Date.now() / 1000));
  const contact = (from: string) => [{ profile: { name: 'Double user' }, wa_id: from }];

  return {
    ...server,
    baseUrl: `${server.url}/${version}`,
    replies,
    fault(fault) {
      faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    deliver(url, delivery, deliverOptions = {}) {
      const { messageId: _id, ...payload } = delivery as WebhookDelivery;
      const raw = JSON.stringify(payload);
      const signature =
        deliverOptions.signature ??
        `sha256=${createHmac('sha256', options.appSecret).update(raw).digest('hex')}`;
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: raw,
      });
    },
    verify(url, verifyToken, challenge) {
      const query = new URLSearchParams({
        'hub.mode': 'subscribe',
        'hub.verify_token': verifyToken,
        'hub.challenge': challenge,
      });
      return fetch(`${url}?${query.toString()}`);
    },
    textMessage(from, text, id = nextId()) {
      return wrap(
        {
          contacts: contact(from),
          messages: [{ from, id, timestamp: timestamp(), type: 'text', text: { body: text } }],
        },
        id,
      );
    },
    imageMessage(from, id = nextId()) {
      return wrap(
        {
          contacts: contact(from),
          messages: [
            {
              from,
              id,
              timestamp: timestamp(),
              type: 'image',
              image: { id: 'media-1', mime_type: 'image/jpeg', sha256: 'ab12', caption: 'a photo' },
            },
          ],
        },
        id,
      );
    },
    statusEvent(messageId) {
      return wrap({
        statuses: [
          {
            id: messageId,
            status: 'delivered',
            timestamp: timestamp(),
            recipient_id: '6281100001',
            conversation: { id: 'conversation-1', origin: { type: 'service' } },
            pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
          },
        ],
      });
    },
  };
}
