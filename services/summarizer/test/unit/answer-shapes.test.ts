/**
 * The answer shapes: the JSON schema each call sends (strict, generated from the zod schema that
 * reads the answer) and the lenient reading of what models write.
 */
import { parseStructuredAnswer } from '@pelita/kit';
import {
  CHUNK_ANSWER,
  CHUNK_ANSWER_NO_NER,
  ENTITIES_ANSWER,
  REDUCE_ANSWER,
} from '../../src/answer-shapes';
import { emptyEntities } from '../../src/entities';

const read =
  <T>(shape: { schema: { safeParse(v: unknown): { success: boolean; data?: T } } }) =>
  (value: unknown) => {
    const result = shape.schema.safeParse(value);
    return result.success ? result.data : 'invalid';
  };

describe('answer shapes', () => {
  it('send the exact keys asked, every one required, lists capped', () => {
    const schema = CHUNK_ANSWER.jsonSchema as {
      properties: Record<string, { type: string; maxItems?: number; properties?: object }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toEqual([
      'summary',
      'key_points',
      'topics',
      'named_entities',
    ]);
    expect(schema.required).toEqual(['summary', 'key_points', 'topics', 'named_entities']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.key_points?.maxItems).toBe(12);
    expect(Object.keys(schema.properties.named_entities?.properties ?? {})).toEqual([
      'PER',
      'ORG',
      'GPE',
      'LOC',
      'DATE',
      'TIME',
      'EVENT',
      'FAC',
    ]);
    expect(
      Object.keys((CHUNK_ANSWER_NO_NER.jsonSchema as { properties: object }).properties),
    ).toEqual(['summary', 'key_points', 'topics']);
    expect(REDUCE_ANSWER.jsonSchema).toEqual({
      type: 'object',
      properties: {
        summary: {
          type: 'string',
          minLength: 1,
          description: 'a shorter summary that keeps every important fact',
        },
      },
      required: ['summary'],
      additionalProperties: false,
    });
  });

  it('read a summary leniently: a lone string is a list, missing lists are empty, text trimmed', () => {
    expect(
      read(CHUNK_ANSWER)({ summary: ' s ', key_points: 'one', named_entities: { per: 'Ani' } }),
    ).toEqual({
      summary: 's',
      key_points: ['one'],
      topics: [],
      named_entities: { ...emptyEntities(), PER: ['Ani'] },
    });
    expect(read(CHUNK_ANSWER)({ key_points: [] })).toBe('invalid');
  });

  it('take no empty summary: the schema asks for one character at least, and blank text is unusable', () => {
    const schema = CHUNK_ANSWER.jsonSchema as { properties: { summary: { minLength?: number } } };
    expect(schema.properties.summary.minLength).toBe(1);
    for (const blank of ['', '   ']) {
      expect(read(CHUNK_ANSWER)({ summary: blank, key_points: [], topics: [] })).toBe('invalid');
      expect(read(REDUCE_ANSWER)({ summary: blank })).toBe('invalid');
    }
  });

  it('read entities inside named_entities or at the top level, and nothing else', () => {
    expect(read(ENTITIES_ANSWER)({ per: 'Ani', ORG: ['A', 'a'] })).toEqual({
      named_entities: { ...emptyEntities(), PER: ['Ani'], ORG: ['A'] },
    });
    expect(read(ENTITIES_ANSWER)({ summary: 'no entities here' })).toBe('invalid');
    const many = Array.from({ length: 60 }, (_, i) => `Person ${i}`);
    const parsed = parseStructuredAnswer(
      JSON.stringify({ named_entities: { PER: many } }),
      ENTITIES_ANSWER,
    );
    expect(parsed.ok && parsed.value.named_entities.PER).toHaveLength(40);
  });
});
