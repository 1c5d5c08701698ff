/**
 * The OpenAI-compatible endpoints through the official `openai` client: the models list, a
 * completion, a stream with usage, an abort, the errors; answers land in the session's history.
 */
import OpenAI from 'openai';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { expectJson, startCoreStack, type CoreStack } from './support/core-stack';

const QUESTION = [
  'Our travel policy says that every trip abroad needs the approval of a department head before booking.',
  'Receipts must be uploaded within thirty days after the trip has ended.',
  'Who approves a trip abroad?',
].join(' ');

describe('OpenAI-compatible endpoints', () => {
  let stub: LlmStub;
  let stack: CoreStack;
  let workspaceId: string;
  let key: string;
  let client: OpenAI;

  beforeAll(async () => {
    stub = await startLlmStub({ latencyMs: 0 });
    stack = await startCoreStack({ BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' });
    const admin = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', admin.token, { name: 'Open' }),
        201,
      )
    ).id;
    key = (
      await expectJson<{ key: string }>(
        stack.call('POST', `/api/workspaces/${workspaceId}/app-keys`, admin.token, { name: 'sdk' }),
        201,
      )
    ).key;
    client = new OpenAI({ baseURL: `${stack.url}/open-api`, apiKey: key, maxRetries: 0 });
  });
  afterAll(async () => {
    await stack?.stop();
    await stub?.close();
  });

  const history = (sessionId: string) =>
    expectJson<{
      data: { results: Array<{ chat: string; response: string; status: string }>; total: number };
    }>(
      stack.call(
        'GET',
        `/v1/api/open-api/workspaces/${workspaceId}/history`,
        undefined,
        undefined,
        {
          authorization: `Bearer ${key}`,
          'x-session-id': sessionId,
        },
      ),
      200,
    );

  it("lists the workspace models in OpenAI's shape", async () => {
    const models = await client.models.list();
    expect(models.data).toEqual([
      { id: 'pelita-stub', object: 'model', created: expect.any(Number), owned_by: 'pelita' },
    ]);
  });

  it('answers a completion and stores it in the session given by X-SESSION-ID', async () => {
    const completion = await client.chat.completions.create(
      { model: 'pelita-stub', messages: [{ role: 'user', content: QUESTION }] },
      { headers: { 'x-session-id': 'sdk-plain' } },
    );
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const stored = await history('sdk-plain');
    expect(stored.data.total).toBe(1);
    expect(stored.data.results[0]).toMatchObject({
      chat: QUESTION,
      response: completion.choices[0]!.message.content,
      status: 'complete',
    });
  });

  it('streams chunks: role first, finish_reason last, then a usage chunk without choices', async () => {
    const stream = await client.chat.completions.create(
      {
        model: 'pelita-stub',
        messages: [{ role: 'user', content: QUESTION }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { headers: { 'x-session-id': 'sdk-stream' } },
    );
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.object).toBe('chat.completion.chunk');
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const withChoices = chunks.filter((c) => c.choices.length > 0);
    expect(withChoices.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(withChoices.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBeGreaterThan(0);
    const text = withChoices.map((c) => c.choices[0]!.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    const stored = await history('sdk-stream');
    expect(stored.data.results[0]).toMatchObject({ response: text, status: 'complete' });
  });

  it('keeps what an aborted request had asked, never losing the question', async () => {
    stub.configure({ latencyMs: 500 });
    const controller = new AbortController();
    const pending = client.chat.completions.create(
      { model: 'pelita-stub', messages: [{ role: 'user', content: QUESTION }], stream: true },
      { headers: { 'x-session-id': 'sdk-abort' }, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toThrow();
    stub.configure({ latencyMs: 0 });
    // The question is stored; its answer ended when the client left.
    for (let i = 0; i < 50; i++) {
      const stored = await history('sdk-abort');
      if (stored.data.results[0] && stored.data.results[0].status !== 'answering') {
        expect(stored.data.results[0]).toMatchObject({ chat: QUESTION });
        expect(['failed', 'partial']).toContain(stored.data.results[0].status);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the aborted question was not stored as ended');
  });

  it("answers errors in OpenAI's shape", async () => {
    await expect(
      client.chat.completions.create({
        model: 'no-such-model',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_found', type: 'not_found_error' });
    await expect(
      client.chat.completions.create({
        model: 'pelita-stub',
        messages: [{ role: 'assistant', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_messages' });
    const bad = new OpenAI({
      baseURL: `${stack.url}/open-api`,
      apiKey: 'pk_nonsense',
      maxRetries: 0,
    });
    await expect(bad.models.list()).rejects.toMatchObject({
      status: 403,
      type: 'authentication_error',
    });
    // Even a body that is not JSON at all is answered in OpenAI's shape.
    const unparsable = await fetch(`${stack.url}/open-api/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(unparsable.status).toBe(400);
    expect(((await unparsable.json()) as { error: { type: string } }).error.type).toBe(
      'invalid_request_error',
    );
    const raw = await stack.call('POST', '/open-api/chat/completions', key, { model: 1 });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
  });

  it('gives a model error as 503 before the stream starts', async () => {
    stub.setFaults([{ match: /UNAVAILABLE/, fault: { kind: 'status', status: 503 } }]);
    try {
      await expect(
        client.chat.completions.create({
          model: 'pelita-stub',
          messages: [{ role: 'user', content: 'UNAVAILABLE now?' }],
          stream: true,
        }),
      ).rejects.toMatchObject({ status: 503, code: 'llm_unavailable' });
    } finally {
      stub.setFaults([]);
    }
  });
});
