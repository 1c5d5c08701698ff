/**
 * The WhatsApp bridge end to end, against the real PostgreSQL, Redis and OpenSearch, with the
 * Cloud API double (Meta's side: signed webhooks in, replies recorded) and the LLM stand-in:
 * Meta's handshake; a text message answered from the integration's sources (the reply names
 * what a passage holds) and recorded once — also across a core-backend restart between the
 * question and the answer; a bad signature refused with nothing stored; a retried message id
 * answered once; an image answered "text only"; a status event accepted and not answered; 5xx,
 * 429 (after its Retry-After) and a slow Cloud API tried again, then given up visibly; the
 * per-sender limit with one "slow down"; the sender's conversation readable through the history
 * open API with the integration's key; a key without sources answering without passages.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { requireEnv } from '@pelita/testenv';
import { startWhatsappDouble, type WhatsappDouble } from '@pelita/vendor-doubles';
import pg from 'pg';
import { SLOW_DOWN_REPLY, TEXT_ONLY_REPLY } from '../../src/messaging/outbox-worker';
import { createKnowledgeIndex } from '../../src/retrieval/knowledge-index';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

const TOKEN = 'EAAG-whatsapp-access-token-5678';
const APP_SECRET = 'meta-app-secret-9012';
const VERIFY_TOKEN = 'pelita-verify-3456';
const NUMBER = '1098765';
const FACT = 'Every trip abroad needs the approval of Ibu Kertajaya, the head of travel.';
const QUESTION = 'Who approves a trip abroad?';

interface OutboxRow {
  state: string;
  reply_kind: string;
  attempts: number;
  last_error: string | null;
  reply_id: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `check` to hold (20 s at most). */
async function eventually<T>(check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await sleep(100);
  }
  throw new Error('not within 20 s');
}

describe('the WhatsApp bridge', () => {
  let whatsapp: WhatsappDouble;
  let stub: LlmStub;
  let stack: CoreStack;
  let owner: TestUser;
  let db: pg.Client;
  let workspaceId: string;
  let integrationId: string;
  let webhook: string;
  let appKey: { id: string; key: string };
  /** A sender who already talked with the integration (under its first app key). */
  let firstSender: string;
  const index = `core-knowledge-wa-${randomBytes(4).toString('hex')}`;

  const call = (method: string, path: string, body?: unknown) =>
    stack.call(method, `/api/workspaces/${workspaceId}${path}`, owner.token, body);
  const repliesTo = (messageId: string | undefined) =>
    whatsapp.replies.filter((reply) => reply.replyTo === messageId);
  /** The replies to the message, once there is one. */
  const answered = (messageId: string | undefined) => {
    const replies = repliesTo(messageId);
    return replies.length > 0 ? replies : undefined;
  };
  const outboxRow = async (messageId: string | undefined) =>
    (
      await db.query<OutboxRow>(
        'select * from core_backend.whatsapp_messages where integration_id = $1 and wa_message_id = $2',
        [integrationId, messageId],
      )
    ).rows[0];
  /** A new sender's number: each test its own, so the rate limit counts only its messages. */
  const sender = () => `628${Math.floor(1e9 + Math.random() * 9e9)}`;

  beforeAll(async () => {
    const { OPENSEARCH_URL } = requireEnv('OPENSEARCH_URL');
    whatsapp = await startWhatsappDouble({
      accessToken: TOKEN,
      appSecret: APP_SECRET,
      phoneNumberId: NUMBER,
    });
    // Echo: the answer repeats the extracts it was given, so a reply shows what it came from.
    stub = await startLlmStub({ latencyMs: 0, summaryMode: 'echo' });
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      ALLOWED_TARGETS: '127.0.0.1',
      KNOWLEDGE_INDEX: index,
      WHATSAPP_TIMEOUT: '1000',
      WHATSAPP_RETRY_MS: '200',
      WHATSAPP_POLL_MS: '100',
      WHATSAPP_MAX_ATTEMPTS: '4',
      WHATSAPP_RATE_LIMIT: '3',
      WHATSAPP_RATE_WINDOW_SECONDS: '600',
    });
    owner = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', owner.token, { name: 'WhatsApp desk' }),
        201,
      )
    ).id;

    // A document of the workspace with one passage (as OCR would have left it).
    db = new pg.Client({ connectionString: stack.platform.databaseUrl });
    await db.connect();
    const documentId = randomUUID();
    await db.query(
      `insert into core_backend.documents
         (id, task_id, workspace_id, name, source, processing, type_ocr, state, created_by)
       values ($1::uuid, $1::text, $2, 'travel-policy.pdf', 'upload', 'local', 'ekstrak_only', 'done', $3)`,
      [documentId, workspaceId, owner.id],
    );
    await createKnowledgeIndex({
      search: new Client({ node: OPENSEARCH_URL }),
      index,
      embedder: undefined,
    }).replace(
      { resourceType: 'document', resourceId: documentId },
      ['chunk'],
      [
        {
          workspaceId,
          resourceType: 'document',
          resourceId: documentId,
          kind: 'chunk',
          position: 0,
          title: 'travel-policy.pdf',
          text: `${FACT} Receipts are uploaded within thirty days.`,
        },
      ],
    );
    appKey = await expectJson(
      call('POST', '/app-keys', {
        name: 'whatsapp',
        sources: [{ type: 'document', id: documentId }],
      }),
      201,
    );
    const integration = await expectJson<{
      id: string;
      receiving: boolean;
      webhook_path: string;
    }>(
      call('POST', '/integrations', {
        name: 'Support line',
        base_url: whatsapp.baseUrl,
        phone_number_id: NUMBER,
        access_token: TOKEN,
        app_secret: APP_SECRET,
        verify_token: VERIFY_TOKEN,
        app_key_id: appKey.id,
      }),
      201,
    );
    expect(integration).toMatchObject({ receiving: true });
    integrationId = integration.id;
    webhook = `${stack.url}${integration.webhook_path}`;
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await stub?.close();
    await whatsapp?.close();
  });
  afterEach(() => {
    whatsapp.clearFaults();
    stub.setFaults([]);
  });

  it('keeps the app secret and verify token sealed, never answered', async () => {
    const shown = await (await call('GET', `/integrations/${integrationId}`)).text();
    const { rows } = await db.query<{ row: string }>(
      'select row_to_json(t)::text as row from core_backend.workspace_integrations t where id = $1',
      [integrationId],
    );
    for (const text of [shown, rows[0]!.row]) {
      expect(text).not.toContain(APP_SECRET);
      expect(text).not.toContain(VERIFY_TOKEN);
    }
    expect(JSON.parse(shown)).toMatchObject({ app_key_id: appKey.id, receiving: true });
  });

  it("answers Meta's handshake with the challenge for the verify token only", async () => {
    const ok = await whatsapp.verify(webhook, VERIFY_TOKEN, '1158201444');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('1158201444');
    expect((await whatsapp.verify(webhook, 'pelita-verify-0000', '1')).status).toBe(403);
    const unknown = `${stack.url}/webhooks/whatsapp/${randomUUID()}`;
    expect((await whatsapp.verify(unknown, VERIFY_TOKEN, '1')).status).toBe(404);
  });

  it("answers a text from the integration's sources, once, readable through the history API", async () => {
    const from = (firstSender = sender());
    const message = whatsapp.textMessage(from, QUESTION);
    const accepted = await whatsapp.deliver(webhook, message);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ stored: 1, duplicates: 0, statuses: 0 });

    const [reply] = await eventually(() => answered(message.messageId));
    expect(reply).toMatchObject({ to: from, phoneNumberId: NUMBER });
    expect(reply!.text.toLowerCase()).toContain('kertajaya');
    // The reply is recorded as sent once the Cloud API's answer is back.
    const row = await eventually(async () => {
      const found = await outboxRow(message.messageId);
      return found?.state === 'sent' ? found : undefined;
    });
    expect(row).toMatchObject({ reply_kind: 'answer', reply_id: reply!.id });

    const history = await expectJson<{
      data: { results: Array<{ chat: string; response: string; status: string }>; total: number };
    }>(
      stack.call(
        'GET',
        `/v1/api/open-api/workspaces/${workspaceId}/history`,
        undefined,
        undefined,
        {
          authorization: `Bearer ${appKey.key}`,
          'x-session-id': `whatsapp:${integrationId}:${appKey.id}:${from}`,
        },
      ),
      200,
    );
    expect(history.data.total).toBe(1);
    expect(history.data.results[0]).toMatchObject({ chat: QUESTION, status: 'complete' });
    expect(reply!.text).toBe(history.data.results[0]!.response.trim());
    await sleep(500);
    expect(repliesTo(message.messageId)).toHaveLength(1);
  });

  it('answers a retried message id once', async () => {
    const message = whatsapp.textMessage(sender(), QUESTION);
    const [first, second] = await Promise.all([
      whatsapp.deliver(webhook, message),
      whatsapp.deliver(webhook, message),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await eventually(() => repliesTo(message.messageId).length > 0);
    // Meta retries later too: still nothing more.
    expect(await (await whatsapp.deliver(webhook, message)).json()).toMatchObject({
      stored: 0,
      duplicates: 1,
    });
    await sleep(800);
    expect(repliesTo(message.messageId)).toHaveLength(1);
  });

  it('refuses a delivery not signed with the app secret, and stores nothing', async () => {
    const message = whatsapp.textMessage(sender(), QUESTION);
    const forged = await whatsapp.deliver(webhook, message, {
      signature: `sha256=${'0'.repeat(64)}`,
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: { code: 'invalid_signature' } });
    const unsigned = await fetch(webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
    });
    expect(unsigned.status).toBe(401);
    await sleep(500);
    expect(await outboxRow(message.messageId)).toBeUndefined();
    expect(repliesTo(message.messageId)).toEqual([]);
  });

  it('answers an image "text only" and accepts a status event without answering it', async () => {
    const image = whatsapp.imageMessage(sender());
    expect((await whatsapp.deliver(webhook, image)).status).toBe(200);
    const [reply] = await eventually(() => answered(image.messageId));
    expect(reply!.text).toBe(TEXT_ONLY_REPLY);

    const before = whatsapp.replies.length;
    const status = await whatsapp.deliver(webhook, whatsapp.statusEvent(reply!.id));
    expect(await status.json()).toEqual({ stored: 0, duplicates: 0, statuses: 1 });
    await sleep(500);
    expect(whatsapp.replies).toHaveLength(before);
  });

  it('tries again after a 5xx, after a 429 once its Retry-After passed, and after a slow answer', async () => {
    whatsapp.fault({ kind: 'status', status: 503 });
    whatsapp.fault({ kind: 'rate-limit', retryAfterSeconds: 1 });
    whatsapp.fault({ kind: 'slow', ms: 1500 });
    const message = whatsapp.textMessage(sender(), QUESTION);
    const sentAt = Date.now();
    await whatsapp.deliver(webhook, message);
    const [reply] = await eventually(() => answered(message.messageId));
    // 200 ms after the 503, the 1 s of Retry-After after the 429, the 1 s time-out, 800 ms.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1000 + 1000);
    expect(reply!.text.toLowerCase()).toContain('kertajaya');
    const tries = whatsapp.requests.filter(
      (r) =>
        r.path === `/v21.0/${NUMBER}/messages` &&
        (r.body as { context?: { message_id?: string } }).context?.message_id === message.messageId,
    );
    expect(tries).toHaveLength(4);
    expect(
      await eventually(async () => {
        const found = await outboxRow(message.messageId);
        return found?.state === 'sent' ? found : undefined;
      }),
    ).toMatchObject({ attempts: 3 });
    await sleep(500);
    expect(repliesTo(message.messageId)).toHaveLength(1);
  });

  it('gives up after WHATSAPP_MAX_ATTEMPTS, visibly and without the token', async () => {
    whatsapp.fault({ kind: 'status', status: 500, times: 4 });
    const message = whatsapp.textMessage(sender(), QUESTION);
    await whatsapp.deliver(webhook, message);
    const row = await eventually(async () => {
      const found = await outboxRow(message.messageId);
      return found?.state === 'failed' ? found : undefined;
    });
    expect(row).toMatchObject({ attempts: 4 });
    expect(row.last_error).toContain('500');
    expect(row.last_error).not.toContain(TOKEN);
    expect(repliesTo(message.messageId)).toEqual([]);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(metrics).toMatch(/core_whatsapp_replies_total\{kind="answer",outcome="failed"\} 1/);
  });

  it('answers a sender up to the limit, then one "slow down", then nothing', async () => {
    const from = sender();
    // The first question takes the model longest: answered at once, the others would overtake it.
    stub.setFaults([{ match: /\(1\)/, fault: { kind: 'latency', ms: 800 } }]);
    const messages = [1, 2, 3, 4, 5].map((n) => whatsapp.textMessage(from, `${QUESTION} (${n})`));
    for (const message of messages) await whatsapp.deliver(webhook, message);
    const toSender = () => whatsapp.replies.filter((reply) => reply.to === from);
    await eventually(() => toSender().length >= 4);
    await sleep(800);
    expect(toSender()).toHaveLength(4);
    // One sender's replies in the order of the messages, though the worker answers several at once.
    expect(toSender().map((reply) => reply.replyTo)).toEqual(
      messages.slice(0, 4).map((message) => message.messageId),
    );
    expect(toSender().filter((reply) => reply.text === SLOW_DOWN_REPLY)).toHaveLength(1);
    expect(repliesTo(messages[3]!.messageId)[0]!.text).toBe(SLOW_DOWN_REPLY);
    expect(await outboxRow(messages[4]!.messageId)).toMatchObject({
      state: 'skipped',
      reply_kind: 'none',
    });
  });

  it('answers without passages when its app key has no sources, never from the whole workspace', async () => {
    const bare = await expectJson<{ id: string }>(
      call('POST', '/app-keys', { name: 'whatsapp-bare' }),
      201,
    );
    await expectJson(call('PATCH', `/integrations/${integrationId}`, { app_key_id: bare.id }), 200);
    try {
      stub.resetStats();
      // Someone who talked under the first key: a new conversation of the new key, not a 409.
      const message = whatsapp.textMessage(firstSender, QUESTION);
      await whatsapp.deliver(webhook, message);
      const [reply] = await eventually(() => answered(message.messageId));
      expect(reply!.text.toLowerCase()).not.toContain('kertajaya');
      expect(
        stub
          .stats()
          .calls.map((c) => c.prompt)
          .join('\n'),
      ).not.toContain('Kertajaya');
    } finally {
      await expectJson(
        call('PATCH', `/integrations/${integrationId}`, { app_key_id: appKey.id }),
        200,
      );
    }
  });

  it('loses nothing and sends once across a restart between the question and the answer', async () => {
    // The model takes long on this question: the restart comes while it is being answered.
    stub.setFaults([{ match: /HOLD-ON/, fault: { kind: 'latency', ms: 4000 } }]);
    const from = sender();
    const message = whatsapp.textMessage(from, `HOLD-ON ${QUESTION}`);
    expect((await whatsapp.deliver(webhook, message)).status).toBe(200);
    await eventually(() => stub.stats().calls.some((c) => c.prompt.includes('HOLD-ON')));
    expect(await outboxRow(message.messageId)).toMatchObject({ state: 'pending' });

    // Only the question under way waits; the new process is answered at once.
    stub.setFaults([]);
    await stack.restart();
    const [reply] = await eventually(() => answered(message.messageId));
    expect(reply!.text.toLowerCase()).toContain('kertajaya');
    await sleep(1000);
    expect(repliesTo(message.messageId)).toHaveLength(1);
    await eventually(async () => (await outboxRow(message.messageId))?.state === 'sent');
  });
});
