/**
 * `response_format` and `max_tokens` at the stand-in, through the openai SDK: the schema a caller
 * sends is checked as OpenAI checks it and recorded; the server honours it, ignores it, knows
 * only json_object, or refuses it, as set; answers stop at `max_tokens`, and a prompt with its
 * `max_tokens` over the context is refused as vLLM refuses it.
 */
import OpenAI, { BadRequestError } from 'openai';
import { startLlmStub, type LlmStub } from '../../src';

const SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    topics: { type: 'array', items: { type: 'string' }, maxItems: 2 },
  },
  required: ['summary', 'topics'],
  additionalProperties: false,
};
const FORMAT = {
  type: 'json_schema' as const,
  json_schema: { name: 'summary', schema: SCHEMA, strict: true },
};
const MESSAGES = [
  // The prompt asks for other keys than the schema: an enforcing server follows the schema.
  { role: 'system' as const, content: 'Return JSON: {"summary": "...", "key_points": []}' },
  {
    role: 'user' as const,
    content:
      '<document>\nBudi Santoso opened the bridge in Jakarta. Many people came. The mayor spoke.\n</document>',
  },
];

describe('response_format at the stand-in', () => {
  let stub: LlmStub;
  let client: OpenAI;
  const ask = (extra: Record<string, unknown> = {}) =>
    client.chat.completions.create({ model: 'pelita-stub', messages: MESSAGES, ...extra });

  beforeAll(async () => {
    stub = await startLlmStub({ maxModelLen: 400 });
    client = new OpenAI({ baseURL: stub.url, apiKey: 'any', maxRetries: 0 });
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.resetStats();
    stub.setFaults([]);
    stub.configure({ structuredOutput: 'honour', requireSchema: false });
  });

  it('refuses, when told, a request that asks for JSON without its schema', async () => {
    stub.configure({ requireSchema: true });
    await expect(ask()).rejects.toThrow(/requires response_format json_schema/);
    await expect(ask({ response_format: { type: 'json_object' } })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(ask({ response_format: FORMAT })).resolves.toBeDefined();
    // A request that asks for prose is not concerned.
    await expect(
      client.chat.completions.create({
        model: 'pelita-stub',
        messages: [{ role: 'user', content: 'Hello there.' }],
      }),
    ).resolves.toBeDefined();
  });

  it('honours a json_schema: exactly its keys, whatever the prompt and the faults', async () => {
    stub.setFaults([{ fault: { kind: 'malformed' } }, { fault: { kind: 'fence' } }]);
    const answer = await ask({ response_format: FORMAT });
    const value = JSON.parse(answer.choices[0]!.message.content!) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['summary', 'topics']);
    expect(value.summary).toMatch(/^Budi Santoso/);
    expect((value.topics as string[]).length).toBeLessThanOrEqual(2);
    const [call] = stub.stats().calls;
    expect(call).toMatchObject({
      responseFormat: 'json_schema',
      jsonSchema: { name: 'summary', schema: SCHEMA, strict: true },
      faults: [],
    });
  });

  it('refuses a strict schema OpenAI would refuse, and a response_format without a schema', async () => {
    const loose = { ...SCHEMA, required: ['summary'] };
    await expect(
      ask({
        response_format: {
          type: 'json_schema',
          json_schema: { name: 's', schema: loose, strict: true },
        },
      }),
    ).rejects.toThrow(/Invalid schema for response_format 's'.*Missing 'topics'/);
    await expect(ask({ response_format: { type: 'json_schema' } })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });

  it('ignores the schema when told: the prompt decides and faults apply', async () => {
    stub.configure({ structuredOutput: 'ignore' });
    stub.setFaults([{ fault: { kind: 'fence' } }]);
    const answer = await ask({ response_format: FORMAT });
    expect(answer.choices[0]!.message.content).toMatch(/^```json\n\{\n {2}"summary"/);
    expect(answer.choices[0]!.message.content).toContain('"key_points"');
  });

  it('knows only json_object, or no response_format at all, when told', async () => {
    stub.configure({ structuredOutput: 'json_object' });
    await expect(ask({ response_format: FORMAT })).rejects.toThrow(
      /json_schema is not supported by this server/,
    );
    await expect(ask({ response_format: { type: 'json_object' } })).resolves.toBeDefined();
    stub.configure({ structuredOutput: 'none' });
    await expect(ask({ response_format: { type: 'json_object' } })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(ask({ response_format: { type: 'text' } })).resolves.toBeDefined();
    expect(stub.stats().calls.map((call) => call.status)).toEqual([400, 200, 400, 200]);
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const answer = await ask({ response_format: FORMAT, max_tokens: 8 });
    expect(answer.choices[0]!.finish_reason).toBe('length');
    expect(answer.usage!.completion_tokens).toBeLessThanOrEqual(8);
    expect(answer.choices[0]!.message.content).toMatch(/^\{\n {2}"summary": "Budi Santoso\s*$/);
    expect(stub.stats().calls[0]).toMatchObject({ maxTokens: 8, finishReason: 'length' });
  });

  it('refuses a prompt whose max_tokens does not fit the context, as vLLM does', async () => {
    await expect(ask({ max_tokens: 390 })).rejects.toThrow(
      /maximum context length is 400 tokens\. However, you requested \d+ tokens/,
    );
  });

  it('refuses a prompt that fills the context without max_tokens, as vLLM does', async () => {
    const long = [{ role: 'user' as const, content: 'word '.repeat(500) }];
    await expect(
      client.chat.completions.create({ model: 'pelita-stub', messages: long }),
    ).rejects.toThrow(/maximum context length is 400 tokens\. However, your request has \d+ input/);
    await expect(ask()).resolves.toMatchObject({ object: 'chat.completion' });
  });
});
