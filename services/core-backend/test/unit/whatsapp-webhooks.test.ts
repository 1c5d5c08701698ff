/**
 * Meta's webhook as the bridge reads it: the signature is an HMAC of the exact bytes with the app
 * secret (anything else refused before the body is read), the handshake's verify token must
 * match, a delivery's messages for this number are read and those of another number skipped, a
 * retried message is stored once, and a sender past the rate limit gets one "slow down", then
 * nothing.
 */
import { createHmac } from 'node:crypto';
import { HttpError } from '@pelita/kit';
import type { NewInbound } from '../../src/messaging/outbox-repository';
import { inboundMessages } from '../../src/messaging/webhook-payload';
import { sameText, signatureMatches } from '../../src/messaging/webhook-signature';
import { createWebhooks } from '../../src/messaging/webhooks';
import type { Receiver } from '../../src/workspace-config/integrations';

const SECRET = 'app-secret-1234';
const NUMBER = '1098765';
const sign = (body: Buffer | string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A delivery as Meta sends it, for `number`. */
function delivery(messages: unknown[], extra: object = {}, number = NUMBER) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA-1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: number },
              contacts: [{ profile: { name: 'Sari' }, wa_id: '6281100001' }],
              messages,
              ...extra,
            },
          },
        ],
      },
    ],
  };
}
const text = (id: string, body: string, from = '6281100001') => ({
  from,
  id,
  timestamp: '1764300000',
  type: 'text',
  text: { body },
});
const image = (id: string) => ({
  from: '6281100001',
  id,
  timestamp: '1764300000',
  type: 'image',
  image: { id: 'media-1', mime_type: 'image/jpeg', sha256: 'x' },
});

describe('X-Hub-Signature-256', () => {
  const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');

  it('matches the HMAC-SHA256 of the exact bytes with the app secret', () => {
    expect(signatureMatches(body, sign(body), SECRET)).toBe(true);
    expect(
      signatureMatches(body, sign(body).toUpperCase().replace('SHA256', 'sha256'), SECRET),
    ).toBe(true);
  });

  it('refuses another secret, other bytes, a bad format and no header or body', () => {
    expect(signatureMatches(body, sign(body, 'another-secret'), SECRET)).toBe(false);
    // The same JSON re-serialised with a space: other bytes, another signature.
    const spaced = Buffer.from('{"object": "whatsapp_business_account","entry":[]}');
    expect(signatureMatches(spaced, sign(body), SECRET)).toBe(false);
    expect(signatureMatches(body, sign(body).replace('sha256=', 'sha1='), SECRET)).toBe(false);
    expect(signatureMatches(body, sign(body).slice(0, -2), SECRET)).toBe(false);
    expect(signatureMatches(body, `${sign(body)}00`, SECRET)).toBe(false);
    expect(signatureMatches(body, undefined, SECRET)).toBe(false);
    expect(signatureMatches(undefined, sign(body), SECRET)).toBe(false);
  });

  it('compares verify tokens of any length without throwing', () => {
    expect(sameText('verify-me', 'verify-me')).toBe(true);
    expect(sameText('verify-m', 'verify-me')).toBe(false);
    expect(sameText('', 'verify-me')).toBe(false);
  });
});

describe('a webhook delivery', () => {
  it('reads text and other messages of its number, counts statuses, skips other numbers', () => {
    const payload = delivery([text('wamid.1', 'Who approves a trip?'), image('wamid.2')], {
      statuses: [{ id: 'wamid.out', status: 'delivered' }],
    });
    payload.entry.push(delivery([text('wamid.3', 'not ours')], {}, '999').entry[0]!);
    expect(inboundMessages(payload, NUMBER)).toEqual({
      messages: [
        { id: 'wamid.1', from: '6281100001', type: 'text', text: 'Who approves a trip?' },
        { id: 'wamid.2', from: '6281100001', type: 'image', text: undefined },
      ],
      statuses: 1,
    });
  });

  it('skips a message of an unknown shape and other fields, and refuses what is no delivery', () => {
    const payload = delivery([{ id: 'wamid.x' }, text('wamid.4', 'hi')]);
    payload.entry[0]!.changes.push({ field: 'account_update', value: {} as never });
    expect(inboundMessages(payload, NUMBER).messages.map((m) => m.id)).toEqual(['wamid.4']);
    expect(() => inboundMessages({ object: 'page', entry: [] }, NUMBER)).toThrow(HttpError);
    expect(() => inboundMessages([1, 2], NUMBER)).toThrow(HttpError);
  });
});

describe('the webhooks', () => {
  const receiver = {
    id: 'integration-1',
    workspaceId: 'workspace-1',
    phoneNumberId: NUMBER,
    appSecret: SECRET,
    verifyToken: 'verify-me',
  } as Receiver;

  function setup(rateLimit = 3) {
    const stored: NewInbound[] = [];
    const counts = new Map<string, number>();
    let woken = 0;
    const webhooks = createWebhooks({
      integrations: { receiver: () => Promise.resolve(receiver) },
      outbox: {
        has: (_integration, id) => Promise.resolve(stored.some((m) => m.waMessageId === id)),
        insert: (message) => {
          stored.push(message);
          return Promise.resolve(true);
        },
      },
      senderCount: (_integration, sender) => {
        counts.set(sender, (counts.get(sender) ?? 0) + 1);
        return Promise.resolve(counts.get(sender)!);
      },
      rateLimit,
      wake: () => void (woken += 1),
    });
    const receive = (payload: unknown, signature?: string) => {
      const raw = Buffer.from(JSON.stringify(payload));
      return webhooks.receive('integration-1', raw, signature ?? sign(raw));
    };
    return { webhooks, stored, receive, woken: () => woken };
  }

  it('echoes the challenge for a subscribe with the verify token, 403 otherwise', async () => {
    const { webhooks } = setup();
    const handshake = { mode: 'subscribe', verifyToken: 'verify-me', challenge: '1158201444' };
    await expect(webhooks.verify('integration-1', handshake)).resolves.toBe('1158201444');
    for (const wrong of [
      { ...handshake, verifyToken: 'verify-you' },
      { ...handshake, mode: 'unsubscribe' },
      { ...handshake, verifyToken: undefined },
    ]) {
      await expect(webhooks.verify('integration-1', wrong)).rejects.toMatchObject({
        status: 403,
      });
    }
  });

  it('refuses a delivery not signed with the app secret, storing nothing', async () => {
    const { receive, stored } = setup();
    const payload = delivery([text('wamid.1', 'hi')]);
    await expect(receive(payload, sign('{}'))).rejects.toMatchObject({
      status: 401,
      code: 'invalid_signature',
    });
    await expect(receive(payload, '')).rejects.toMatchObject({ status: 401 });
    expect(stored).toEqual([]);
  });

  it('stores a retried message once and wakes the worker only for new ones', async () => {
    const { receive, stored, woken } = setup();
    const payload = delivery([text('wamid.1', 'Who approves a trip?')]);
    expect(await receive(payload)).toEqual({ stored: 1, duplicates: 0, statuses: 0 });
    expect(await receive(payload)).toEqual({ stored: 0, duplicates: 1, statuses: 0 });
    expect(stored).toEqual([
      expect.objectContaining({
        waMessageId: 'wamid.1',
        sender: '6281100001',
        body: 'Who approves a trip?',
        replyKind: 'answer',
      }),
    ]);
    expect(woken()).toBe(1);
    // A status event alone is accepted and answered with nothing.
    const status = delivery([], { statuses: [{ id: 'wamid.out', status: 'read' }] });
    expect(await receive(status)).toEqual({ stored: 0, duplicates: 0, statuses: 1 });
    expect(woken()).toBe(1);
  });

  it('answers text, notes "text only" for the rest, and one "slow down" past the limit', async () => {
    const { receive, stored } = setup(2);
    await receive(delivery([image('wamid.1'), text('wamid.2', 'hi'), text('wamid.3', 'more')]));
    await receive(delivery([text('wamid.4', 'still')]));
    await receive(delivery([text('wamid.5', 'other sender', '6289900002')]));
    expect(stored.map((m) => [m.waMessageId, m.replyKind])).toEqual([
      ['wamid.1', 'text_only'],
      ['wamid.2', 'answer'],
      ['wamid.3', 'slow_down'],
      ['wamid.4', 'none'],
      ['wamid.5', 'answer'],
    ]);
  });
});
