/**
 * Asking in a room against the LLM stand-in: the answer streams as server-sent events read
 * incrementally, is stored as the seed's record, and a model that cannot answer gives a clear
 * error with the question stored as failed.
 */
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { freePort } from '@pelita/testenv';
import { readEvents } from './support/event-stream';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

const LONG_QUESTION = [
  'The annual budget of the company is frozen every November after the board has reviewed all forecasts of the departments.',
  'Each department head then receives the frozen figures and plans the next year with them in mind.',
  'Changes after the freeze need the approval of the chief financial officer and a written reason.',
  'What happens to the budget in November, and who may change it afterwards?',
].join(' ');

interface ChatRecord {
  id: string;
  chat: string;
  response: string;
  llm: string;
  status: string;
  error: string | null;
}

describe('chat in a room', () => {
  let stub: LlmStub;
  let stack: CoreStack;
  let admin: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    stub = await startLlmStub({ latencyMs: 0 });
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      MAX_CHAR_GENERATE_REPORT: '300',
    });
    admin = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', admin.token, { name: 'Chat' }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    await stack?.stop();
    await stub?.close();
  });

  const newRoom = async () =>
    (
      await expectJson<{ id: string }>(
        stack.call('POST', `/api/workspaces/${workspaceId}/rooms`, admin.token, {}),
        201,
      )
    ).id;

  it('streams the answer event by event and stores it', async () => {
    const room = await newRoom();
    const res = await stack.call(
      'POST',
      `/api/workspaces/${workspaceId}/rooms/${room}/messages`,
      admin.token,
      // The stand-in answers with the question's leading sentences, in 64-character chunks.
      { chat: LONG_QUESTION },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(res);
    expect(events[0]!.event).toBe('sources');
    const tokens = events.filter((e) => e.event === 'token');
    expect(tokens.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    const record = done.data as ChatRecord;
    expect(record.response).toBe(tokens.map((t) => (t.data as { text: string }).text).join(''));
    expect(record).toMatchObject({ status: 'complete', llm: 'pelita-stub', error: null });

    const history = await expectJson<{ data: ChatRecord[]; total: number }>(
      stack.call('GET', `/api/workspaces/${workspaceId}/rooms/${room}/messages`, admin.token),
      200,
    );
    expect(history.total).toBe(1);
    expect(history.data[0]).toMatchObject({ id: record.id, response: record.response });
  });

  it('sends the last exchanges of the room with the next question', async () => {
    const room = await newRoom();
    const ask = (chat: string) =>
      stack
        .call('POST', `/api/workspaces/${workspaceId}/rooms/${room}/messages`, admin.token, {
          chat,
        })
        .then(readEvents);
    await ask('First question about kettles.');
    await ask('Second question about teapots.');
    await ask('Third question about cups.');
    stub.resetStats();
    await ask('Fourth question.');
    const call = stub.stats().calls.at(-1)!;
    const text = JSON.stringify(call);
    // MAXIMUM_CHAT_PER_ROOM (2): the two last exchanges go with the question, not the first.
    expect(text).toContain('teapots');
    expect(text).toContain('cups');
    expect(text).not.toContain('kettles');
  });

  it('reports on a room with the report prompt, its material cut at MAX_CHAR_GENERATE_REPORT', async () => {
    const room = await newRoom();
    const messages = `/api/workspaces/${workspaceId}/rooms/${room}/messages`;
    await readEvents(await stack.call('POST', messages, admin.token, { chat: LONG_QUESTION }));
    stub.resetStats();
    const report = await expectJson<{ report: string; truncated: boolean; characters: number }>(
      stack.call('POST', `/api/workspaces/${workspaceId}/rooms/${room}/report`, admin.token),
      200,
    );
    expect(report.report.length).toBeGreaterThan(0);
    expect(report).toMatchObject({ truncated: true, characters: 300 });
    const sent = JSON.stringify(stub.stats().calls.at(-1));
    expect(sent).toContain('structured report');
    expect(sent).toContain('Question: The annual budget');
  });

  it('counts messages per day and reactions on the dashboard', async () => {
    const room = await newRoom();
    const messages = `/api/workspaces/${workspaceId}/rooms/${room}/messages`;
    const record = (
      await readEvents(await stack.call('POST', messages, admin.token, { chat: 'Count me.' }))
    ).at(-1)!.data as ChatRecord;
    await expectJson(
      stack.call('PUT', `${messages}/${record.id}/reaction`, admin.token, { reaction: 'like' }),
      200,
    );
    const dashboard = await expectJson<{
      messages_per_day: Array<{ day: string; messages: number }>;
      reactions: { likes: number; dislikes: number };
      counts: { messages: number; rooms: number };
    }>(stack.call('GET', `/api/workspaces/${workspaceId}/dashboard?days=7`, admin.token), 200);
    expect(dashboard.messages_per_day).toHaveLength(7);
    expect(dashboard.messages_per_day.at(-1)).toEqual({
      day: new Date().toISOString().slice(0, 10),
      messages: dashboard.counts.messages,
    });
    expect(dashboard.reactions.likes).toBeGreaterThanOrEqual(1);
    expect(dashboard.counts.rooms).toBeGreaterThanOrEqual(1);
  });

  it('edits a question and asks again, dropping what came after it', async () => {
    const room = await newRoom();
    const messages = `/api/workspaces/${workspaceId}/rooms/${room}/messages`;
    const first = (
      await readEvents(
        await stack.call('POST', messages, admin.token, { chat: 'Original question.' }),
      )
    ).at(-1)!.data as ChatRecord;
    await readEvents(await stack.call('POST', messages, admin.token, { chat: 'A later one.' }));
    const edited = (
      await readEvents(
        await stack.call('PUT', `${messages}/${first.id}`, admin.token, {
          chat: 'Edited question.',
        }),
      )
    ).at(-1)!.data as ChatRecord;
    expect(edited.chat).toBe('Edited question.');
    const history = await expectJson<{ data: ChatRecord[]; total: number }>(
      stack.call('GET', messages, admin.token),
      200,
    );
    expect(history.data.map((m) => m.chat)).toEqual(['Edited question.']);
  });

  it('answers 503 before any event when the model server is unreachable, and keeps the question as failed', async () => {
    const closed = await freePort();
    const down = await startCoreStack({
      BASE_URL_LOCAL: `http://127.0.0.1:${closed}/v1`,
      MODEL_LOCAL: 'pelita-stub',
      LLM_MAX_RETRIES: '0',
    });
    try {
      const boss = await down.admin();
      const ws = await expectJson<{ id: string }>(
        down.call('POST', '/api/workspaces', boss.token, { name: 'Down' }),
        201,
      );
      const room = await expectJson<{ id: string }>(
        down.call('POST', `/api/workspaces/${ws.id}/rooms`, boss.token, {}),
        201,
      );
      const messages = `/api/workspaces/${ws.id}/rooms/${room.id}/messages`;
      const refused = await expectJson<{ error: { code: string } }>(
        down.call('POST', messages, boss.token, { chat: 'Anyone there?' }),
        503,
      );
      expect(refused.error.code).toBe('llm_unreachable');
      const history = await expectJson<{ data: ChatRecord[] }>(
        down.call('GET', messages, boss.token),
        200,
      );
      expect(history.data[0]).toMatchObject({ chat: 'Anyone there?', status: 'failed' });
    } finally {
      await down.stop();
    }
  });

  it('answers 502 when the model server refuses the request', async () => {
    const room = await newRoom();
    stub.setFaults([{ match: /REFUSE-ME/, fault: { kind: 'status', status: 400 } }]);
    try {
      const refused = await expectJson<{ error: { code: string } }>(
        stack.call('POST', `/api/workspaces/${workspaceId}/rooms/${room}/messages`, admin.token, {
          chat: 'REFUSE-ME please',
        }),
        502,
      );
      expect(refused.error.code).toBe('llm_error');
    } finally {
      stub.setFaults([]);
    }
  });
});

describe('chat with a model that fails part-way', () => {
  let stub: LlmStub;
  let stack: CoreStack;
  let admin: TestUser;
  let messages: string;

  beforeAll(async () => {
    stub = await startLlmStub({ latencyMs: 0 });
    stack = await startCoreStack({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      LLM_TIMEOUT_MS: '700',
      LLM_MAX_RETRIES: '0',
    });
    admin = await stack.admin();
    const ws = await expectJson<{ id: string }>(
      stack.call('POST', '/api/workspaces', admin.token, { name: 'Faults' }),
      201,
    );
    const room = await expectJson<{ id: string }>(
      stack.call('POST', `/api/workspaces/${ws.id}/rooms`, admin.token, {}),
      201,
    );
    messages = `/api/workspaces/${ws.id}/rooms/${room.id}/messages`;
  });
  afterAll(async () => {
    await stack?.stop();
    await stub?.close();
  });
  afterEach(() => stub.setFaults([]));

  const stored = async (chat: string) => {
    const history = await expectJson<{ data: ChatRecord[] }>(
      stack.call('GET', messages, admin.token),
      200,
    );
    return history.data.find((record) => record.chat === chat)!;
  };

  it('answers 504 before any event when the model is silent past LLM_TIMEOUT_MS', async () => {
    stub.setFaults([{ match: /SILENT/, fault: { kind: 'latency', ms: 3000 } }]);
    const answer = await stack.call('POST', messages, admin.token, { chat: 'SILENT model?' });
    expect(answer.status).toBe(504);
    expect(await answer.json()).toMatchObject({ error: { code: 'llm_timeout' } });
    expect(answer.headers.get('content-type')).toMatch(/json/);
    expect((await stored('SILENT model?')).status).toBe('failed');
  });

  it('ends with an error event when the stream breaks, and keeps the partial answer', async () => {
    stub.setFaults([{ match: /BREAK/, fault: { kind: 'stream-break', afterChunks: 1 } }]);
    const events = await readEvents(
      await stack.call('POST', messages, admin.token, {
        chat: 'BREAK the stream of this rather long answer, please, after the first part.',
      }),
    );
    const tokens = events.filter((e) => e.event === 'token');
    expect(tokens.length).toBeGreaterThan(0);
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    const record = await stored(
      'BREAK the stream of this rather long answer, please, after the first part.',
    );
    expect(record.status).toBe('partial');
    expect(record.response).toBe(tokens.map((e) => (e.data as { text: string }).text).join(''));
    expect(record.error).toBeTruthy();
  });

  it('ends with an error event when the stream stalls past LLM_TIMEOUT_MS, keeping what came', async () => {
    stub.setFaults([
      { match: /STALL/, fault: { kind: 'stream-break', afterChunks: 1, pauseMs: 5000 } },
    ]);
    const events = await readEvents(
      await stack.call('POST', messages, admin.token, { chat: 'STALL half-way, model.' }),
    );
    expect(events.at(-1)!.event).toBe('error');
    const record = await stored('STALL half-way, model.');
    expect(record.status).toBe('partial');
    expect(record.response.length).toBeGreaterThan(0);
  });
});

describe('chat with a model of a small context', () => {
  let stub: LlmStub;
  let stack: CoreStack;
  let admin: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    // 300 tokens, refused beyond as vLLM refuses: the list says so, and the backend fits to it.
    stub = await startLlmStub({ latencyMs: 0, maxModelLen: 300 });
    stack = await startCoreStack({ BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' });
    admin = await stack.admin();
    workspaceId = (
      await expectJson<{ id: string }>(
        stack.call('POST', '/api/workspaces', admin.token, { name: 'Small' }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    await stack?.stop();
    await stub?.close();
  });

  /** About 120 tokens: four sentences naming `marker`. */
  const question = (marker: string) =>
    Array.from(
      { length: 4 },
      (_, i) =>
        `Sentence ${i} asks how the ${marker} collection in the old harbour museum was catalogued by the volunteers during the long winter months of that year.`,
    ).join(' ');

  it("leaves the oldest exchanges out rather than exceed the model's context", async () => {
    const room = (
      await expectJson<{ id: string }>(
        stack.call('POST', `/api/workspaces/${workspaceId}/rooms`, admin.token, {}),
        201,
      )
    ).id;
    const ask = async (chat: string) => {
      const res = await stack.call(
        'POST',
        `/api/workspaces/${workspaceId}/rooms/${room}/messages`,
        admin.token,
        { chat },
      );
      expect(res.status).toBe(200);
      return (await readEvents(res)).at(-1)!;
    };
    for (const marker of ['kettle', 'teapot', 'saucer']) {
      const done = await ask(question(marker));
      expect(done.event).toBe('done');
      expect(done.data).toMatchObject({ status: 'complete', error: null });
    }
    const calls = stub.stats().calls;
    expect(calls.map((call) => call.status)).toEqual([200, 200, 200]);
    // Two earlier exchanges (MAXIMUM_CHAT_PER_ROOM) would not have fitted with the third question.
    expect(calls.at(-1)!.prompt).not.toContain('kettle');
    expect(calls.at(-1)!.prompt).toContain('saucer');

    // The room's report: its material cut to the context, and the answer says so.
    const report = await expectJson<{ report: string; truncated: boolean; characters: number }>(
      stack.call('POST', `/api/workspaces/${workspaceId}/rooms/${room}/report`, admin.token),
      200,
    );
    expect(report.report.length).toBeGreaterThan(0);
    expect(report.truncated).toBe(true);
    expect(stub.stats().calls.at(-1)!.status).toBe(200);
  });
});
