import { APIConnectionError, BadRequestError, InternalServerError } from 'openai';
import { z } from 'zod';
import {
  answerTokenCap,
  createStructuredOutputModes,
  defineAnswerShape,
  isFormatRefusal,
  parseStructuredAnswer,
  responseFormatOf,
  type StructuredOutputMode,
} from '../../src/structured-output';

const refusal = (message = 'response_format json_schema is not supported') =>
  new BadRequestError(400, { message }, undefined, new Headers());

const Sql = defineAnswerShape(
  'sql_query',
  z.object({
    sql: z.string().describe('one SELECT'),
    tables: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()).max(3)),
  }),
);

describe('answer shapes', () => {
  it('generate the strict JSON schema from the zod schema that validates the answer', () => {
    expect(Sql.jsonSchema).toEqual({
      type: 'object',
      properties: {
        sql: { type: 'string', description: 'one SELECT' },
        tables: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      },
      required: ['sql', 'tables'],
      additionalProperties: false,
    });
    expect(responseFormatOf(Sql, 'json_schema')).toEqual({
      type: 'json_schema',
      json_schema: { name: 'sql_query', schema: Sql.jsonSchema, strict: true },
    });
    expect(responseFormatOf(Sql, 'json_object')).toEqual({ type: 'json_object' });
    expect(responseFormatOf(Sql, 'prompt')).toBeUndefined();
  });

  it('refuse a schema strict mode cannot take (an optional property) or a bad name', () => {
    expect(() => defineAnswerShape('x', z.object({ a: z.string().optional() }))).toThrow(
      /every property required.*optional: a/,
    );
    expect(() => defineAnswerShape('has space', z.object({ a: z.string() }))).toThrow(/letters/);
  });

  it('read an answer: cleaned, repaired, then validated (with the lenient preprocess)', () => {
    expect(parseStructuredAnswer('```json\n{"sql": "SELECT 1", "tables": "t"}\n```', Sql)).toEqual({
      ok: true,
      value: { sql: 'SELECT 1', tables: ['t'] },
      repaired: false,
    });
    expect(parseStructuredAnswer('{"sql": "SELECT 1", "tables": ["a"', Sql)).toMatchObject({
      ok: true,
      repaired: true,
    });
    expect(parseStructuredAnswer('{"tables": []}', Sql)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^the JSON does not match sql_query: sql: /),
    });
    expect(parseStructuredAnswer('no idea', Sql)).toEqual({
      ok: false,
      reason: 'no JSON object in the answer',
    });
  });
});

describe('structured output modes', () => {
  /** A fake server: refuses the modes listed, records what it was sent. */
  function server(refused: StructuredOutputMode[], error: () => Error = refusal) {
    const sent: StructuredOutputMode[] = [];
    const call = (mode: StructuredOutputMode) => {
      sent.push(mode);
      return refused.includes(mode) ? Promise.reject(error()) : Promise.resolve(`ok ${mode}`);
    };
    return { sent, call };
  }

  it('walks down once on a refusal and remembers the accepted mode per model', async () => {
    const downgrades: string[] = [];
    const modes = createStructuredOutputModes({
      preferred: 'json_schema',
      onDowngrade: (model, from, to) => downgrades.push(`${model}: ${from} -> ${to}`),
    });
    const old = server(['json_schema']);
    await expect(modes.send('old', old.call)).resolves.toBe('ok json_object');
    await expect(modes.send('old', old.call)).resolves.toBe('ok json_object');
    expect(old.sent).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(modes.modeFor('old')).toBe('json_object');

    const bare = server(['json_schema', 'json_object']);
    await expect(modes.send('bare', bare.call)).resolves.toBe('ok prompt');
    await expect(modes.send('bare', bare.call)).resolves.toBe('ok prompt');
    expect(bare.sent).toEqual(['json_schema', 'json_object', 'prompt', 'prompt']);

    expect(modes.modeFor('new')).toBe('json_schema');
    expect(downgrades).toEqual(['old: json_schema -> json_object', 'bare: json_schema -> prompt']);
  });

  it('starts from the preferred mode of the setting', async () => {
    const modes = createStructuredOutputModes({ preferred: 'prompt' });
    const fake = server([]);
    await modes.send('m', fake.call);
    expect(fake.sent).toEqual(['prompt']);
  });

  it('remembers nothing when every mode is refused, and throws the first refusal', async () => {
    const modes = createStructuredOutputModes({ preferred: 'json_schema' });
    const fake = server(['json_schema', 'json_object', 'prompt'], () => refusal('bad model'));
    await expect(modes.send('m', fake.call)).rejects.toThrow('bad model');
    expect(fake.sent).toEqual(['json_schema', 'json_object', 'prompt']);
    expect(modes.modeFor('m')).toBe('json_schema');
  });

  it('does not walk down for other failures, nor for a prompt over the context', async () => {
    const modes = createStructuredOutputModes({ preferred: 'json_schema' });
    for (const error of [
      () => new InternalServerError(500, { message: 'boom' }, undefined, new Headers()),
      () => new APIConnectionError({ message: 'refused' }),
      () => refusal("This model's maximum context length is 2048 tokens"),
      () => refusal('Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096'),
    ]) {
      const fake = server(['json_schema'], error);
      await expect(modes.send('m', fake.call)).rejects.toBeDefined();
      expect(fake.sent).toEqual(['json_schema']);
    }
    expect(isFormatRefusal(refusal())).toBe(true);
    expect(modes.modeFor('m')).toBe('json_schema');
  });
});

describe('answerTokenCap', () => {
  const messages = [{ content: 'x'.repeat(3000) }, { content: 'y'.repeat(300) }];

  it('leaves what the context holds after the prompt, estimated generously', () => {
    // 1000 + 100 tokens of text, 8 per message: 1116, plus 10%: 1228; 2048 - 1228 = 820.
    expect(answerTokenCap(messages, 2048, 4096)).toBe(820);
    expect(answerTokenCap(messages, 32_768, 4096)).toBe(4096);
  });

  it('asks for what the caller wants without a context length, never for almost nothing', () => {
    expect(answerTokenCap(messages, undefined, 4096)).toBe(4096);
    expect(answerTokenCap(messages, undefined, undefined)).toBeUndefined();
    expect(answerTokenCap(messages, 2048, undefined)).toBe(820);
    expect(answerTokenCap(messages, 1000, 4096)).toBe(32);
  });

  it('counts punctuation-dense text (JSON) by its words and marks, not only its length', () => {
    // '["a","a",...]': 4,001 characters, each a letter or a mark (a token each for a real
    // tokeniser), where the length alone says 1,334 tokens.
    const json = [{ content: JSON.stringify(Array.from({ length: 1000 }, () => 'a')) }];
    // 4,001 + 8, plus 10%: 4,410; 8,192 - 4,410 = 3,782 (by length alone it would be 6,715).
    expect(answerTokenCap(json, 8192, undefined)).toBe(3782);
  });
});
