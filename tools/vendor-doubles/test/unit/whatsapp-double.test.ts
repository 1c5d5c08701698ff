/**
 * The WhatsApp Cloud API double speaks Meta's wire protocol both ways: it takes text replies for
 * its number with its access token only, records them, fails on request (5xx, 429 with
 * Retry-After, slow), and delivers webhooks signed with the app secret over the exact bytes.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWhatsappDouble, type WhatsappDouble } from '../../src';

const TOKEN = 'EAAG-double-token';
const SECRET = 'double-app-secret';

describe('WhatsApp Cloud API double', () => {
  let whatsapp: WhatsappDouble;
  beforeAll(async () => {
    whatsapp = await startWhatsappDouble({
      accessToken: TOKEN,
      appSecret: SECRET,
      phoneNumberId: '1098765',
    });
  });
  afterAll(() => whatsapp?.close());
  afterEach(() => whatsapp.clearFaults());

  const send = (body: object, token = TOKEN, signal?: AbortSignal) =>
    fetch(`${whatsapp.baseUrl}/1098765/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const reply = {
    messaging_product: 'whatsapp',
    to: '6281100001',
    type: 'text',
    text: { body: 'Hello' },
    context: { message_id: 'wamid.in.1' },
  };

  it('takes a text reply with the access token, and records it', async () => {
    const res = await send(reply);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { messages: Array<{ id: string }> };
    expect(body.messages[0]!.id).toMatch(/^wamid\.out\.\d+$/);
    expect(whatsapp.replies.at(-1)).toEqual({
      phoneNumberId: '1098765',
      to: '6281100001',
      text: 'Hello',
      replyTo: 'wamid.in.1',
      id: body.messages[0]!.id,
    });
  });

  it("refuses another token (Meta's 401) and a malformed reply (400), recording neither", async () => {
    const before = whatsapp.replies.length;
    expect((await send(reply, 'EAAG-other')).status).toBe(401);
    expect((await send({ ...reply, text: { body: '' } })).status).toBe(400);
    expect(whatsapp.replies).toHaveLength(before);
  });

  it('fails on request: 5xx, 429 with Retry-After, and slow (an abandoned reply is not taken)', async () => {
    const before = whatsapp.replies.length;
    whatsapp.fault({ kind: 'status', status: 503 });
    whatsapp.fault({ kind: 'rate-limit', retryAfterSeconds: 2 });
    expect((await send(reply)).status).toBe(503);
    const limited = await send(reply);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '2']);
    whatsapp.fault({ kind: 'slow', ms: 400 });
    await expect(send(reply, TOKEN, AbortSignal.timeout(100))).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(whatsapp.replies).toHaveLength(before);
    expect((await send(reply)).status).toBe(200);
    expect(whatsapp.replies).toHaveLength(before + 1);
  });

  it('delivers webhooks signed over the exact bytes, and runs the handshake', async () => {
    const received: Array<{ method: string; url: string; raw: string; signature: string }> = [];
    const receiver: Server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({
          method: req.method!,
          url: req.url!,
          raw,
          signature: String(req.headers['x-hub-signature-256'] ?? ''),
        });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const text = whatsapp.textMessage('6281100001', 'Who approves a trip?');
      await whatsapp.deliver(url, text);
      await whatsapp.deliver(url, whatsapp.statusEvent('wamid.out.1'), { signature: 'sha256=00' });
      await whatsapp.verify(url, 'verify-me', '12345');
      const [message, status, handshake] = received;
      expect(message!.signature).toBe(
        `sha256=${createHmac('sha256', SECRET).update(message!.raw).digest('hex')}`,
      );
      const payload = JSON.parse(message!.raw) as {
        entry: Array<{ changes: Array<{ value: { messages: Array<{ id: string }> } }> }>;
      };
      expect(payload.entry[0]!.changes[0]!.value.messages[0]!.id).toBe(text.messageId);
      expect(status!.signature).toBe('sha256=00');
      expect(handshake).toMatchObject({
        method: 'GET',
        url: '/hook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=12345',
      });
    } finally {
      receiver.close();
    }
  });
});
