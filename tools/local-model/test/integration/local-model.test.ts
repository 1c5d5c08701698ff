/**
 * The real local model (SmolLM2-135M-Instruct on node-llama-cpp, from the cache install.sh
 * fills) through the official `openai` client, as the platform's services call it: the model
 * list, a whole answer, a streamed one with its usage chunk, a client leaving mid-stream (the
 * next request is answered), answers held to a `response_format` (json_schema, json_object),
 * OpenAI's error shape for an unknown model, vLLM's refusal of a prompt the context cannot hold,
 * and the background lane (`/background/v1`) running
 * beside the chat: a chat is answered while a long answer is still being written there.
 */
import OpenAI, { NotFoundError } from 'openai';
import { startLocalModel, type LocalModelProcess } from '../../src/process';

const MODEL = 'smollm2-135m-instruct';

describe('local model', () => {
  let server: LocalModelProcess;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startLocalModel({ LOCAL_MODEL_MAX_TOKENS: '48' });
    client = new OpenAI({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('lists its one model, with its context size', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => ({ id: m.id, object: m.object }))).toEqual([
      { id: MODEL, object: 'model' },
    ]);
    expect((models.data[0] as unknown as { max_model_len: number }).max_model_len).toBe(2048);
  });

  it('holds the answer to a json_schema response_format: it parses and has the keys', async () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        landmarks: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      },
      required: ['city', 'landmarks'],
      additionalProperties: false,
    };
    for (let i = 0; i < 2; i += 1) {
      const answer = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Which city is the capital of France?' }],
        temperature: 0,
        max_tokens: 200,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'city', schema, strict: true },
        },
      });
      // No prompt asked for JSON: the grammar alone shapes it.
      const value = JSON.parse(answer.choices[0]!.message.content ?? '') as Record<string, unknown>;
      expect(Object.keys(value)).toEqual(['city', 'landmarks']);
      expect(typeof value.city).toBe('string');
      expect(Array.isArray(value.landmarks)).toBe(true);
    }
  });

  it('holds the answer to json_object: any JSON', async () => {
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Describe Paris.' }],
      temperature: 0,
      max_tokens: 120,
      response_format: { type: 'json_object' },
    });
    const content = answer.choices[0]!.message.content ?? '';
    expect(content.trim().startsWith('{') || content.trim().startsWith('[')).toBe(true);
    if (answer.choices[0]!.finish_reason === 'stop') {
      expect(() => void JSON.parse(content)).not.toThrow();
    }
  });

  it('answers a question with words, and counts the tokens', async () => {
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      temperature: 0,
    });
    const text = answer.choices[0]!.message.content ?? '';
    expect(text).toMatch(/Paris/);
    expect(answer.choices[0]!.finish_reason).toMatch(/^(stop|length)$/);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
    expect(answer.usage!.total_tokens).toBe(
      answer.usage!.prompt_tokens + answer.usage!.completion_tokens,
    );
  });

  it('streams: role first, text deltas, the finish reason, then the usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Name three colours.' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.trim().length).toBeGreaterThan(0);
    const finished = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finished).toHaveLength(1);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('stops an answer whose client left, and answers the next one', async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      {
        model: MODEL,
        messages: [{ role: 'user', content: 'Write a long story about a river.' }],
        stream: true,
      },
      { signal: controller.signal },
    );
    let seen = 0;
    // The client ends the stream when it aborts (with or without an error, by version).
    await (async () => {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) seen += 1;
        if (seen === 2) controller.abort();
      }
    })().catch(() => undefined);
    expect(seen).toBe(2);
    const next = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    expect((next.choices[0]!.message.content ?? '').length).toBeGreaterThan(0);
  });

  it('answers a chat while a long answer runs on the background lane', async () => {
    const background = new OpenAI({
      baseURL: server.backgroundUrl,
      apiKey: 'unused',
      maxRetries: 0,
    });
    expect((await background.models.list()).data.map((m) => m.id)).toEqual([MODEL]);
    const stop = new AbortController();
    const long = await background.chat.completions.create(
      {
        model: MODEL,
        messages: [{ role: 'user', content: 'Write a long story about a river and its ferry.' }],
        max_tokens: 400,
        temperature: 0,
        stream: true,
      },
      { signal: stop.signal },
    );
    const ended: string[] = [];
    let written = 0;
    const rest = (async () => {
      for await (const chunk of long) if (chunk.choices[0]?.delta.content) written += 1;
      ended.push('background');
    })().catch(() => undefined);
    // The background answer has begun before the chat is asked.
    while (written === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const chat = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 4,
      temperature: 0,
    });
    ended.push('chat');
    expect((chat.choices[0]!.message.content ?? '').length).toBeGreaterThan(0);
    // On one lane the chat would have waited for all 400 tokens.
    expect(ended).toEqual(['chat']);
    stop.abort();
    await rest;
  }, 180_000);

  it('refuses a prompt its 2,048-token context cannot hold, as vLLM does', async () => {
    const long = 'The harbour museum keeps an old kettle. '.repeat(300); // about 2,700 tokens
    await expect(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: long }] }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/maximum context length is 2048 tokens.*input tokens/),
    });
    await expect(
      client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'The harbour museum keeps an old kettle. '.repeat(150) },
        ],
        max_tokens: 1500,
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /requested \d+ tokens \(\d+ in the messages, 1500 in the completion\)/,
      ),
    });
  });

  it("answers an unknown model with OpenAI's 404", async () => {
    await expect(
      client.chat.completions.create({
        model: 'gpt-unknown',
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
