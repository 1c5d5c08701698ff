/**
 * What each model call must answer, as zod schemas: the one source of the JSON schema sent as
 * `response_format` and of the check of the answer. Reading is lenient where models are sloppy
 * and nothing is lost (a lone string for a list, entity keys in another case or outside
 * `named_entities`); the JSON schema still describes the exact shape. Lists are capped so that a
 * server enforcing the schema stops a small model that would repeat items until `max_tokens`.
 */
import { defineAnswerShape, type AnswerShape } from '@pelita/kit';
import { z } from 'zod';
import { dedupeStrings, ENTITY_KEYS, normaliseEntities, type NamedEntities } from './entities';

const MAX_KEY_POINTS = 12;
const MAX_TOPICS = 10;
const MAX_ENTITIES_PER_KEY = 40;

/** A list of strings; a lone string is a list of one; duplicates and blanks dropped, capped. */
const list = (max: number) =>
  z.preprocess(
    (value) =>
      Array.isArray(value)
        ? dedupeStrings(value).slice(0, max)
        : typeof value === 'string'
          ? dedupeStrings([value])
          : value === undefined || value === null
            ? []
            : value,
    z.array(z.string()).max(max),
  );

const entityObject = z
  .object(
    Object.fromEntries(
      ENTITY_KEYS.map((key) => [key, z.array(z.string()).max(MAX_ENTITIES_PER_KEY)]),
    ) as Record<(typeof ENTITY_KEYS)[number], z.ZodArray<z.ZodString>>,
  )
  .strict();

/** Entities as models write them, normalised; `optional` reads a missing object as empty. */
const entities = (optional: boolean) =>
  z.preprocess((value) => {
    if (value === undefined && !optional) return value;
    const normalised = normaliseEntities(value);
    for (const key of ENTITY_KEYS) normalised[key] = normalised[key].slice(0, MAX_ENTITIES_PER_KEY);
    return normalised;
  }, entityObject) as unknown as z.ZodType<NamedEntities>;

/**
 * An empty summary is no answer: the JSON schema says so (`minLength: 1`), so a server enforcing
 * it never writes one (a small model at temperature 0.7 did, now and then), and one from a
 * server that does not enforce it is asked for again like any unusable answer.
 */
const summary = z.string().trim().min(1);

export interface SummaryValue {
  summary: string;
  key_points: string[];
  topics: string[];
  named_entities?: NamedEntities;
}

function summaryShape(name: string, ner: boolean): AnswerShape<SummaryValue> {
  const base = {
    summary: summary.describe('the summary, in the language of the document'),
    key_points: list(MAX_KEY_POINTS).describe('the main points'),
    topics: list(MAX_TOPICS).describe('short topic labels'),
  };
  const schema: z.ZodType<SummaryValue> = ner
    ? z.object({ ...base, named_entities: entities(true) })
    : z.object(base);
  return defineAnswerShape(name, schema);
}

/** Stage 1 and the final merge, with or without entities. */
export const CHUNK_ANSWER = summaryShape('chunk_summary', true);
export const CHUNK_ANSWER_NO_NER = summaryShape('chunk_summary', false);
export const FINAL_ANSWER = summaryShape('final_summary', true);
export const FINAL_ANSWER_NO_NER = summaryShape('final_summary', false);

/** Stage 2 and later: the shorter summary only. */
export const REDUCE_ANSWER: AnswerShape<{ summary: string }> = defineAnswerShape(
  'shorter_summary',
  z.object({ summary: summary.describe('a shorter summary that keeps every important fact') }),
);

/** Entities only; entity keys at the top level are taken as `named_entities`. */
export const ENTITIES_ANSWER: AnswerShape<{ named_entities: NamedEntities }> = defineAnswerShape(
  'named_entities',
  z.preprocess(
    (value) => {
      if (typeof value !== 'object' || value === null || 'named_entities' in value) return value;
      const keys = Object.keys(value).map((key) => key.trim().toUpperCase());
      return keys.some((key) => (ENTITY_KEYS as readonly string[]).includes(key))
        ? { named_entities: value }
        : value;
    },
    z.object({ named_entities: entities(false) }),
  ) as unknown as z.ZodType<{ named_entities: NamedEntities }>,
);
